"""The Gradescope path: the same engine and sandbox, packed as an autograder zip."""
