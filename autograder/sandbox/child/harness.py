"""Runs inside the sandboxed child: loads one student file and answers probes.

Everything here executes in the same process as the student's code, so nothing here is
trusted by the grader: it only computes, and the parent judges what comes back.
"""
from __future__ import annotations

import contextlib
import io
import math
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


def student_place(filename: str, lineno: int | None) -> str:
    """Where, as the student sees their file: `f.py line 82` (a .py's pieces keep the file's lines), or, in a
    notebook, the cell by its first line and the line within it; never the kit's own piece number."""
    name, _, index = filename[1:-1].split(":", 1)[-1].partition("#")
    if not name.endswith(".ipynb") or not index.isdigit():
        return f"{name} line {lineno}"
    lines = linecache.getlines(filename)
    first = next((line.strip() for line in lines if line.strip()), "")
    first = first if len(first) <= 40 else first[:37] + "..."
    return f"{name}, the cell starting `{first}`, line {lineno}" if first else f"{name} line {lineno}"


def describe_error(exc: BaseException) -> dict:
    frames = traceback.extract_tb(exc.__traceback__)
    student = [f for f in frames if f.filename.startswith("<student")]
    where = [f"{student_place(f.filename, f.lineno)}: {f.line}" for f in student[-3:]]
    message = str(exc)
    if isinstance(exc, SyntaxError) and str(exc.filename).startswith("<student"):
        # compile() errors have no frame of the student's: say where from the error itself
        place = student_place(str(exc.filename), exc.lineno)
        where = [f"{place}: {(exc.text or '').strip()}"]
        message = f"{exc.msg} ({place})"
    return {"type": type(exc).__name__, "message": message[:2000], "where": where}


class _Missing(Exception):
    """A judged call names a function the file does not define."""


def _fresh(value):
    """An input of its own for one call (the request's copy stays as sent), dropped again after the call: a
    seeded input is made afresh, a tensor sent whole is copied."""
    made = inputs.materialize(value)
    return made.clone() if made is value and isinstance(made, torch.Tensor) else made


def _refilled(earlier, value):
    """`earlier` (a tensor a previous call was given) holding `value`'s values, where it can hold them."""
    if (isinstance(earlier, torch.Tensor) and isinstance(value, torch.Tensor) and earlier.shape == value.shape
            and earlier.dtype == value.dtype and earlier.stride() == value.stride() and 0 not in earlier.stride()):
        with torch.no_grad():
            earlier.copy_(value)
        return earlier
    return value


def _own_memory(output, args: list):
    """`output`, with a copy of each tensor in it that shares memory with an input (which a later call may refill
    in place): what it answered now is what is judged."""
    if type(output) in (tuple, list):
        return type(output)(_own_memory(o, args) for o in output)
    if not isinstance(output, torch.Tensor):
        return output
    where = output.untyped_storage().data_ptr()
    shared = any(isinstance(a, torch.Tensor) and a.untyped_storage().data_ptr() == where for a in args)
    return output.detach().clone() if shared else output


def _plain_attention(Q, K, V, mask=None):
    """Attention by hand (score, mask, softmax, mix): what stands in for a file's own `attention` in a probe that
    asks whether a layer's own code, around its call of `attention`, reaches a fused kernel (request "stand_in")."""
    scores = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights


@contextlib.contextmanager
def _stood_in(module, names):
    """The module's functions `names` (only "attention") replaced by the harness's own for the probe."""
    saved = {name: vars(module)[name] for name in names or () if name == "attention" and name in vars(module)}
    try:
        for name in saved:
            setattr(module, name, _plain_attention)
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


class Harness:
    def __init__(self) -> None:
        self.module: types.ModuleType | None = None
        self.calling = 0
        self.seen: dict = {"fused": set(), "watch": "on"}
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
        # inputs of the child's own (a tensor sent whole is copied): a later call may refill them in place
        args = [_fresh(a) for a in request.get("args", [])]
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
            self.calling = 0
            try:
                with _stood_in(self.module, request.get("stand_in")):
                    self._probe(target, request, args, kwargs, reply, leaves)
            except BaseException as exc:  # noqa: BLE001
                reply = {"ok": False, "error": describe_error(exc), "call": self.calling}
        reply.update(seen.report())
        return reply

    def runs(self, request: dict) -> dict:
        """Several run requests (request["runs"]) in one round trip, each exactly as `run` answers it alone; the
        first that fails ends the batch, as it would have ended a test that sent them one by one."""
        replies = []
        for one in request.get("runs") or []:
            replies.append(self.run(one))
            if not replies[-1].get("ok"):
                break
        return {"ok": True, "replies": replies}

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
        reply["output"] = _own_memory(output, args)  # judged as answered now, though call 0 be refilled later
        seed = request.get("backward")
        if seed is not None:
            chosen = output[seed["index"]] if seed.get("index") is not None else output
            seeded.backward(chosen, inputs.materialize(seed["grad"]))  # torch.autograd.backward, without sympy
            reply["arg_grads"] = {str(i): leaf.grad for i, leaf in leaves.items()}
            if instance is not None:
                reply["param_grads"] = {n: p.grad for n, p in instance.named_parameters()}
        # What each call's tensor inputs hold right after it (before a later call may refill them): the parent
        # compares it with its own copy of what it sent (grading/integrity.py): no comparison made here decides.
        after = [wire.fingerprints(args, kwargs)]
        kept = {0: args}  # the first call's inputs stay alive (a later call may say "reuse": 0)
        more = []
        for number, call in enumerate(request.get("more") or [], 1):  # the same function or instance, other inputs
            # as a caller's program makes them (see `sequence`): a call that says "reuse": m gets the very tensors
            # of call m refilled in place with its own values; the others' inputs are dropped after the call
            # (unless "keep"), so that the next call's inputs may take their ids and memory
            earlier = kept.get(call.get("reuse"), ())
            fresh = self._laid_out([_fresh(a) for a in call.get("args", [])], request, number)
            more_args = [_refilled(earlier[i] if i < len(earlier) else None, a) for i, a in enumerate(fresh)]
            del fresh
            more_kwargs = inputs.materialize(call.get("kwargs", {}))
            self.calling = number  # which call failed, if one does (0: the first)
            more.append(_own_memory(target(*more_args, **more_kwargs), more_args))
            after.append(wire.fingerprints(more_args, more_kwargs))
            if call.get("keep"):
                kept[number] = more_args
            else:
                while more_args:  # newest first, as in `sequence`
                    more_args.pop()
                more_kwargs = None
        if more:
            reply["more"] = more
        reply["after"] = after

    def sequence(self, request: dict) -> dict:
        """Calls of the module's functions in turn, request["calls"] = [{"target", "args", "kwargs", "layouts"
        {argument index: layout}, "keep", "reuse", "judged"}], each on inputs of its own, as a caller's program
        makes them: right after a judged call, what each of its tensor inputs holds is reported (reply "after", one
        entry per call that returned, None for an unjudged one: wire.fingerprints, judged by the parent against
        its own copy, grading/integrity.py), then the inputs are dropped (so later inputs may take their ids and
        memory) unless it says "keep"; a call that says "reuse": m gets the very tensors kept from call m,
        refilled in place with its own values (an id, address and layout seen before, other values): code that
        answers from a cache keyed on any of them gives a stale answer. The first failing judged call ends the
        sequence (the reply's "call", from 0); a call with "judged": False only stirs the module's state, and its
        failure is left to its own question. A watch covers each call (not the harness's own work between
        calls); the reply carries what all of them saw."""
        outputs: list = []
        after: list = []
        kept: dict = {}
        reply: dict = {"ok": True}
        number = 0
        self.seen = {"fused": set(), "watch": "on"}
        try:
            for number, call in enumerate(request.get("calls") or []):
                outputs.append(self._one_call(call, number, after, kept))
        except BaseException as exc:  # noqa: BLE001
            error = {"type": "Missing", "message": str(exc)} if isinstance(exc, _Missing) else describe_error(exc)
            reply = {"ok": False, "call": number, "error": error}
        reply.update(outputs=outputs, after=after)  # up to the call that raised, if one did
        reply.update(fused=sorted(self.seen["fused"] | watch.forbid.REACHED), watch=self.seen["watch"])
        return reply

    def _watched(self, target, args: list, kwargs: dict):
        """target(*args, **kwargs) under a watch whose report joins the sequence's (with any refusal recorded
        since the last call, which entering a watch clears)."""
        self.seen["fused"].update(watch.forbid.REACHED)
        seen = watch.Watch()
        try:
            with seen:
                return target(*args, **kwargs)
        finally:
            report = seen.report()
            self.seen["fused"].update(report["fused"])
            if report["watch"] != "on":
                self.seen["watch"] = report["watch"]

    def _one_call(self, call: dict, number: int, after: list, kept: dict) -> object:
        judged = call.get("judged", True)
        target = getattr(self.module, str(call.get("target", "")), None)
        if target is None:
            if judged:
                raise _Missing(f"no `{call.get('target')}` defined")
            after.append(None)
            return None
        layouts = call.get("layouts") or {}
        earlier = kept.get(call.get("reuse"), ())
        args = [_refilled(earlier[i] if i < len(earlier) else None, inputs.laid_out(_fresh(a), layouts.get(str(i))))
                for i, a in enumerate(call.get("args", []))]
        kwargs = {k: _fresh(v) for k, v in call.get("kwargs", {}).items()}
        for index in call.get("grad_args") or []:  # as in training: these inputs require a gradient
            args[index] = args[index].detach().requires_grad_(True)
        try:
            output = self._watched(target, args, kwargs)
        except Exception:  # noqa: BLE001 - an unjudged call's failure belongs to its own question
            if judged:
                raise
            output = None
        # What this call's tensor inputs hold now (refilled ones included), before a later call may refill them:
        # the parent compares it with its own copy of what it sent; no comparison made here decides anything.
        # An unjudged call's inputs are its own question's business.
        after.append(wire.fingerprints(args, kwargs) if judged else None)
        if judged:
            output = _own_memory(output, args)
        if call.get("keep"):
            kept[number] = args
        else:
            while args:  # newest first: the next call's inputs, made in the same order, may take their places
                args.pop()
        return output if judged else None

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
                reply = (self.load(request) if op == "load" else self.sequence(request) if op == "sequence"
                         else self.runs(request) if op == "runs" else self.run(request))
            except BaseException as exc:  # noqa: BLE001 - bad request from the parent
                reply = {"ok": False, "error": describe_error(exc)}
            reply["stdout"] = self.out.take()
            try:
                wire.send(sock, reply)
            except Exception as exc:  # noqa: BLE001 - e.g. an ndarray or a hostile tensor subclass
                wire.send(sock, {"ok": False, "stdout": reply.get("stdout", ""), "error": {
                    "type": "BadReturn", "message": f"returned something that is not a tensor ({exc})"}})
