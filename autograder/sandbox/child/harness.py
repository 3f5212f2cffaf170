"""Runs inside the sandboxed child: loads one student file and answers probes.

Everything here executes in the same process as the student's code, so nothing here is
trusted by the grader: it only computes, and the parent judges what comes back.
"""
from __future__ import annotations

import contextlib
import io
import linecache
import sys
import traceback
import types

import torch

import inputs
import seeded
import watch
import wire

OUTPUT_KEPT = 16_384  # characters of a student's printing kept per message


class BoundedText(io.TextIOBase):
    """A stdout that keeps the first OUTPUT_KEPT characters and drops the rest cheaply."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        text = str(text)
        room = OUTPUT_KEPT - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self) -> str:
        out = "".join(self.parts)
        if self.dropped:
            out += f"\n[... {self.dropped} more characters of output not kept]"
        self.parts, self.size, self.dropped = [], 0, 0
        return out


def describe_error(exc: BaseException) -> dict:
    frames = traceback.extract_tb(exc.__traceback__)
    student = [f for f in frames if f.filename.startswith("<student")]
    where = [f"{f.filename[1:-1].split(':', 1)[-1]} line {f.lineno}: {f.line}" for f in student[-3:]]
    message = str(exc)
    if isinstance(exc, SyntaxError) and str(exc.filename).startswith("<student"):
        # compile() errors have no frame of the student's: say where from the error itself
        place = f"{exc.filename[1:-1].split(':', 1)[-1]} line {exc.lineno}"
        where = [f"{place}: {(exc.text or '').strip()}"]
        message = f"{exc.msg} ({place})"
    return {"type": type(exc).__name__, "message": message[:2000], "where": where}


class Harness:
    def __init__(self) -> None:
        self.module: types.ModuleType | None = None
        self.out = BoundedText()

    def load(self, request: dict) -> dict:
        name = request["module"]
        module = types.ModuleType(name)
        module.__file__ = f"<student:{request['filename']}>"
        sys.modules[name] = module
        errors = []
        for index, source in enumerate(request["cells"]):
            filename = f"<student:{request['filename']}#{index}>"
            # Tracebacks read source lines through linecache; without this entry the student's own line
            # would be missing from every error report.
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            try:
                code = compile(source, filename, "exec")
                exec(code, module.__dict__)
            except BaseException as exc:  # noqa: BLE001 - a student's SystemExit is an error too
                errors.append({"cell": index, **describe_error(exc)})
        self.module = module
        names = sorted(k for k in vars(module) if not k.startswith("_"))
        return {"ok": True, "errors": errors, "names": names}

    def run(self, request: dict) -> dict:
        """One probe: build the target (a module is put in eval() mode; lazy parameters are made by a
        first forward pass before they are read or set), call it, optionally run backward, then call
        it again on the further inputs of request["more"]. A watch records any fused attention
        kernel that runs meanwhile; its report goes back with the reply, whatever happened."""
        target = getattr(self.module, request["target"], None)
        if target is None:
            return {"ok": False, "error": {"type": "Missing", "message": f"no `{request['target']}` defined"}}
        args = inputs.materialize(request.get("args", []))
        kwargs = inputs.materialize(request.get("kwargs", {}))
        args = self._laid_out(args, request, 0)
        leaves = {}
        for index in request.get("grad_args", []):
            leaves[index] = args[index].detach().requires_grad_(True)
            # "non_leaf": the argument reaches the function as the result of an operation, as inside a network, so
            # an in-place edit of it is the function's own business (judged by the parent), not autograd's error
            args[index] = leaves[index] + 0 if request.get("non_leaf") else leaves[index]
        reply: dict = {"ok": True}
        # request["no_grad"]: every call runs under torch.no_grad(), as at inference; otherwise autograd is left
        # as the student's file set it (a file that switches it off must still be seen doing so)
        autograd = torch.no_grad() if request.get("no_grad") else contextlib.nullcontext()
        with watch.Watch() as seen, autograd:
            try:
                self._probe(target, request, args, kwargs, reply, leaves)
            except BaseException as exc:  # noqa: BLE001
                reply = {"ok": False, "error": describe_error(exc)}
        reply.update(seen.report())
        return reply

    def _probe(self, target, request: dict, args: list, kwargs: dict, reply: dict, leaves: dict) -> None:
        instance = None
        if request.get("init") is not None:
            instance = target(*request["init"])
            if isinstance(instance, torch.nn.Module):
                instance.train(bool(request.get("train", False)))
                if any(torch.nn.parameter.is_lazy(p) for p in instance.parameters()):
                    with torch.no_grad():  # nn.LazyLinear and friends get their shapes from a first call
                        getattr(instance, request.get("method") or "__call__")(
                            *inputs.materialize(request.get("args", [])),
                            **inputs.materialize(request.get("kwargs", {})))
                named = instance.named_parameters()
            else:
                named = []
            reply["param_names"] = {n: list(p.shape) for n, p in named}
            self._set_params(instance, request.get("params", {}))
            target = getattr(instance, request.get("method") or "__call__")
        output = target(*args, **kwargs)
        reply["output"] = output
        seed = request.get("backward")
        if seed is not None:
            chosen = output[seed["index"]] if seed.get("index") is not None else output
            seeded.backward(chosen, inputs.materialize(seed["grad"]))  # torch.autograd.backward, without sympy
            reply["arg_grads"] = {str(i): leaf.grad for i, leaf in leaves.items()}
            if instance is not None:
                reply["param_grads"] = {n: p.grad for n, p in instance.named_parameters()}
        calls = [(args, kwargs)]
        more = []
        for number, call in enumerate(request.get("more") or [], 1):  # the same function or instance, other inputs
            more_args = self._laid_out(inputs.materialize(call.get("args", [])), request, number)
            more_kwargs = inputs.materialize(call.get("kwargs", {}))
            calls.append((more_args, more_kwargs))
            more.append(target(*more_args, **more_kwargs))
        if more:
            reply["more"] = more
        # What every tensor input of every call holds once all calls are done: the parent compares it with its own
        # copy of what it sent (grading/integrity.py): no comparison made here decides anything.
        reply["after"] = [wire.fingerprints(a, k) for a, k in calls]

    @staticmethod
    def _laid_out(args: list, request: dict, call: int) -> list:
        layouts = (request.get("layouts") or {}).get(str(call)) or {}
        return [inputs.laid_out(a, layouts.get(str(i))) for i, a in enumerate(args)]

    @staticmethod
    def _set_params(instance, params: dict) -> None:
        with torch.no_grad():
            for path, value in params.items():
                holder = instance
                for part in path.split("."):
                    holder = getattr(holder, part)
                if not isinstance(holder, torch.Tensor):
                    raise TypeError(f"self.{path} is not a tensor")
                if tuple(holder.shape) != tuple(value.shape):
                    raise ValueError(f"self.{path} has shape {tuple(holder.shape)}, expected {tuple(value.shape)}")
                holder.copy_(value)

    def serve(self, sock) -> None:
        while True:
            try:
                request = wire.receive(sock, max_bytes=1 << 30)
            except (EOFError, OSError):
                return
            sys.stdout = sys.stderr = self.out
            op = request.get("op")
            try:
                reply = self.load(request) if op == "load" else self.run(request)
            except BaseException as exc:  # noqa: BLE001 - bad request from the parent
                reply = {"ok": False, "error": describe_error(exc)}
            reply["stdout"] = self.out.take()
            try:
                wire.send(sock, reply)
            except Exception as exc:  # noqa: BLE001 - e.g. an ndarray or a hostile tensor subclass
                wire.send(sock, {"ok": False, "stdout": reply.get("stdout", ""), "error": {
                    "type": "BadReturn", "message": f"returned something that is not a tensor ({exc})"}})
