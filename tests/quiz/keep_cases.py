"""A case of keeping a review decision that the kit's own scores of the class refuse (test_quiz_learn.py,
test_quiz_review_page.py)."""

# A teacher decides a misspelt answer is right (2 of 2); keeping it adds "one final vecter" to a key term, and
# with it the kit's reading of another misspelling, which it scored 2 by itself for two students, no longer
# settles: their answer would wait for a person. Found by learning each labelled set's review and grading
# every other set's answers with the result (heldout5's decision, a wording of heldout_answers).
DECIDED = "the decodr can atend to all encodr states insted of one final vecter"
KIT_SCORED_2 = "the decodr can atend to all encoer states insted of one final vectr"
REFUSAL = f"{KIT_SCORED_2!r} was scored 2 by the kit for 2 students of this class, and would wait for a person"
