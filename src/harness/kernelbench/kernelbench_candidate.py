# kopt's reader of a KernelBench candidate (a ModelNew file; docs/kernelbench.md).
#
# Usage: python3 kernelbench_candidate.py CANDIDATE.py INIT_INPUTS_JSON
# Reads the file with `ast` only: it never runs it. Prints one JSON object
# (schema kopt.kernelbench.candidate/1): the CUDA and C++ sources of its
# load_inline call, and what ModelNew.forward computes, which must be one call
# of a load_inline function on forward's arguments and constants. Exit 3 with
# "kopt-candidate-error: FILE:LINE: CAUSE" on stderr for anything else:
# kopt runs only the candidate's CUDA, so Python that would run beside it
# (a patched timer, a monkeypatched torch function, work done in Python) is
# refused rather than ignored.
import ast
import json
import sys

SCHEMA = "kopt.kernelbench.candidate/1"
ALLOWED_MODULES = {"torch", "torch.nn", "torch.nn.functional", "torch.utils.cpp_extension", "math"}
LOAD_INLINE_KEYS = {"name", "cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags",
                    "extra_ldflags", "verbose", "with_cuda", "extra_include_paths", "build_directory"}


class CandidateError(Exception):
    def __init__(self, node, message):
        super().__init__(message)
        self.line = getattr(node, "lineno", 0)


def text_of(source, node):
    segment = ast.get_source_segment(source, node) or ""
    return segment.splitlines()[0][:80] if segment else type(node).__name__


class Reader:
    def __init__(self, source, init_inputs):
        self.source = source
        self.init_inputs = init_inputs
        self.strings = {}      # module-level name -> string value
        self.extensions = {}   # module-level name -> load_inline description

    def string(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.strings:
            return self.strings[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.string(node.left) + self.string(node.right)
        if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
            return "".join(v.value for v in node.values)
        raise CandidateError(node, f"`{text_of(self.source, node)}` is not a string kopt can read without running "
                                   f"the file (use string literals or names bound to them)")

    def strings_list(self, node):
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.string(e) for e in node.elts]
        return [self.string(node)]

    def load_inline(self, call):
        if call.args:
            raise CandidateError(call, "load_inline arguments must be given by keyword")
        info = {"cpp_sources": [], "cuda_sources": [], "functions": [], "extra_cuda_cflags": []}
        for kw in call.keywords:
            if kw.arg not in LOAD_INLINE_KEYS:
                raise CandidateError(kw.value, f"load_inline argument {kw.arg!r} is not supported by kopt")
            if kw.arg in ("cpp_sources", "cuda_sources", "functions", "extra_cuda_cflags"):
                info[kw.arg] = self.strings_list(kw.value)
            elif kw.arg == "name":
                info["name"] = self.string(kw.value)
        if not info["cuda_sources"]:
            raise CandidateError(call, "load_inline has no cuda_sources: kopt evaluates CUDA candidates")
        if not info["functions"]:
            raise CandidateError(call, "load_inline lists no functions")
        return info

    def is_load_inline(self, node):
        return isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Name) and node.func.id == "load_inline") or
            (isinstance(node.func, ast.Attribute) and node.func.attr == "load_inline"))

    def refusal(self, stmt):
        target = ""
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            target = ", ".join(text_of(self.source, t) for t in targets)
        what = f"assigns {target}" if target else f"runs `{text_of(self.source, stmt)}`"
        return CandidateError(stmt, f"a module-level statement {what}: a KernelBench candidate for kopt may "
                                    f"only import torch, bind source strings, call load_inline and define "
                                    f"ModelNew (kopt never runs other Python, so patched timers or torch "
                                    f"functions are refused)")

    @staticmethod
    def patches(stmt):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
        return any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in targets) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and
            isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "setattr")

    def module(self, tree):
        model = None
        refused = []
        for stmt in tree.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                continue  # a docstring
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.name not in ALLOWED_MODULES:
                        raise CandidateError(stmt, f"it imports {alias.name}: kopt runs only the CUDA sources of "
                                                   f"load_inline, not other Python")
                continue
            if isinstance(stmt, ast.ImportFrom):
                if stmt.module not in ALLOWED_MODULES:
                    raise CandidateError(stmt, f"it imports from {stmt.module}: kopt runs only the CUDA sources "
                                               f"of load_inline, not other Python")
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if self.is_load_inline(stmt.value):
                    self.extensions[name] = self.load_inline(stmt.value)
                    continue
                try:
                    self.strings[name] = self.string(stmt.value)
                    continue
                except CandidateError:
                    pass
            if isinstance(stmt, ast.ClassDef) and stmt.name == "ModelNew":
                model = stmt
                continue
            refused.append(stmt)
        if refused:
            patch = next((stmt for stmt in refused if self.patches(stmt)), refused[0])
            raise self.refusal(patch)
        if model is None:
            raise CandidateError(tree, "it does not define class ModelNew")
        if not self.extensions:
            raise CandidateError(tree, "it has no load_inline call at module level")
        return self.model(model)

    def model(self, cls):
        methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
        for stmt in cls.body:
            if not isinstance(stmt, ast.FunctionDef) and not (
                    isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                raise CandidateError(stmt, "ModelNew may define only __init__ and forward")
        extra = set(methods) - {"__init__", "forward"}
        if extra:
            raise CandidateError(methods[sorted(extra)[0]], f"ModelNew defines {sorted(extra)[0]}: only __init__ "
                                                            f"and forward are supported")
        attributes = self.init(methods.get("__init__"))
        if "forward" not in methods:
            raise CandidateError(cls, "ModelNew has no forward")
        return self.forward(methods["forward"], attributes)

    def init(self, fn):
        attributes = {}
        if fn is None:
            return attributes
        params = [a.arg for a in fn.args.args[1:]]
        defaults = dict(zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults))
        values = {}
        for i, p in enumerate(params):
            if i < len(self.init_inputs):
                values[p] = self.init_inputs[i]
            elif p in defaults and isinstance(defaults[p], ast.Constant):
                values[p] = defaults[p].value
        for stmt in fn.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                    "super" in text_of(self.source, stmt.value):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Attribute) and \
                    isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == "self":
                value = stmt.value
                name = stmt.targets[0].attr
                if isinstance(value, ast.Name) and value.id in self.extensions:
                    attributes[name] = ("extension", value.id)
                elif isinstance(value, ast.Name) and value.id in values:
                    attributes[name] = ("constant", values[value.id])
                elif isinstance(value, ast.Constant) and isinstance(value.value, (int, float)):
                    attributes[name] = ("constant", value.value)
                else:
                    raise CandidateError(stmt, f"ModelNew.__init__ sets self.{name} to "
                                               f"`{text_of(self.source, value)}`: kopt supports the load_inline "
                                               f"module and number constants (no parameters or submodules)")
                continue
            raise CandidateError(stmt, f"ModelNew.__init__ runs `{text_of(self.source, stmt)}`: kopt supports "
                                       f"super().__init__() and self.NAME = the load_inline module or a number")
        return attributes

    def forward(self, fn, attributes):
        params = [a.arg for a in fn.args.args[1:]]
        body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
            raise CandidateError(fn, "ModelNew.forward must be one `return EXT.function(args)` (kopt runs the "
                                     "CUDA function, not Python around it)")
        call = body[0].value
        func = call.func
        if not isinstance(func, ast.Attribute):
            raise CandidateError(call, "forward must call a function of the load_inline module")
        owner = func.value
        extension = None
        if isinstance(owner, ast.Name) and owner.id in self.extensions:
            extension = owner.id
        elif isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self" \
                and attributes.get(owner.attr, ("", ""))[0] == "extension":
            extension = attributes[owner.attr][1]
        if extension is None:
            raise CandidateError(call, f"forward calls `{text_of(self.source, func)}`, not a function of a "
                                       f"load_inline module")
        info = self.extensions[extension]
        if func.attr not in info["functions"]:
            raise CandidateError(call, f"forward calls {func.attr}, which load_inline does not export "
                                       f"(functions={info['functions']})")
        if call.keywords:
            raise CandidateError(call, "forward's call must pass its arguments by position")
        args = []
        for a in call.args:
            if isinstance(a, ast.Name) and a.id in params:
                args.append({"kind": "argument", "index": params.index(a.id)})
            elif isinstance(a, ast.Constant) and isinstance(a.value, (int, float)) and not isinstance(a.value, bool):
                args.append({"kind": "constant", "value": a.value})
            elif isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "self" and \
                    attributes.get(a.attr, ("", ""))[0] == "constant":
                args.append({"kind": "constant", "value": attributes[a.attr][1]})
            else:
                raise CandidateError(a, f"forward passes `{text_of(self.source, a)}`: kopt supports forward's "
                                        f"arguments and number constants")
        return {"extension": info, "function": func.attr, "forward_parameters": params, "arguments": args}


def main(argv):
    if len(argv) != 3:
        print("usage: kernelbench_candidate.py CANDIDATE.py INIT_INPUTS_JSON", file=sys.stderr)
        return 2
    path = argv[1]
    try:
        init_inputs = [v.get("value") for v in json.loads(argv[2])]
        with open(path, encoding="utf-8") as f:
            source = f.read()
        try:
            tree = ast.parse(source, path)
        except SyntaxError as e:
            raise CandidateError(e, f"syntax error: {e.msg}")
        record = Reader(source, init_inputs).module(tree)
    except CandidateError as e:
        print(f"kopt-candidate-error: {path}:{e.line}: {e}", file=sys.stderr)
        return 3
    except OSError as e:
        print(f"kopt-candidate-error: {path}:0: cannot read it: {e.strerror}", file=sys.stderr)
        return 3
    record["schema"] = SCHEMA
    json.dump(record, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
