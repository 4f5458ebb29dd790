# kopt's probe of a KernelBench problem file (docs/kernelbench.md).
#
# Usage: python3 kernelbench_probe.py PROBLEM.py
# Prints one JSON object (schema kopt.kernelbench.probe/1) on stdout, exit 0;
# on a problem kopt cannot read: one line "kopt-probe-error: CAUSE" on stderr,
# exit 3. Needs no PyTorch: the problem file runs against a small recording
# stand-in for `torch` (factories, dtypes, nn.Module and the common layers, and
# shape propagation through the common operators), so get_inputs() and
# get_init_inputs() give shapes, dtypes and value distributions, and the
# forward pass gives the output's shape. When real PyTorch is importable and
# the stand-in cannot follow the forward pass (or --real-torch), the output
# shape and the parameters come from real PyTorch on the "meta" device (no
# memory, no GPU).
import ast
import builtins
import json
import math
import sys
import types

SCHEMA = "kopt.kernelbench.probe/1"


class ProbeError(Exception):
    pass


class Unmodelled(Exception):
    """An operator kopt's stand-in does not model (real PyTorch may)."""


class UnmodelledAttribute(Unmodelled, AttributeError):
    """A torch attribute the stand-in lacks (an AttributeError, so getattr with a default works)."""


# ---------------------------------------------------------------- dtypes


class DType:
    def __init__(self, name, kopt, floating, itemsize):
        self.name, self.kopt, self.is_floating_point, self.itemsize = name, kopt, floating, itemsize

    def __repr__(self):
        return "torch." + self.name


DTYPES = {
    "float32": DType("float32", "f32", True, 4),
    "float16": DType("float16", "f16", True, 2),
    "bfloat16": DType("bfloat16", "bf16", True, 2),
    "float64": DType("float64", "f64", True, 8),
    "int64": DType("int64", "i64", False, 8),
    "int32": DType("int32", "i32", False, 4),
    "uint8": DType("uint8", "u8", False, 1),
    "bool": DType("bool", "u8", False, 1),
}
ALIASES = {"float": "float32", "half": "float16", "double": "float64", "long": "int64", "int": "int32"}


def default_dtype():
    return DTYPES["float32"]


# ---------------------------------------------------------------- tensors


class Size(tuple):
    def numel(self):
        return math.prod(self)


def broadcast(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ProbeError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        out.append(max(x, y))
    return out


def norm_dim(dim, rank):
    if dim < 0:
        dim += rank
    if not 0 <= dim < max(rank, 1):
        raise ProbeError(f"dimension {dim} out of range for a {rank}-d tensor")
    return dim


def shape_of(x):
    return list(x.shape) if isinstance(x, Tensor) else []


def dtype_of(x):
    if isinstance(x, Tensor):
        return x.dtype
    return DTYPES["int64"] if isinstance(x, bool) is False and isinstance(x, int) else default_dtype()


class Tensor:
    """A tensor of the stand-in: a shape, a dtype and, for one drawn by a
    factory, the distribution of its values (None when derived)."""

    def __init__(self, shape, dtype=None, init=None):
        self._shape = [int(s) for s in shape]
        for s in self._shape:
            if s < 0:
                raise ProbeError(f"negative dimension in shape {self._shape}")
        self.dtype = dtype or default_dtype()
        self.init = init
        self.requires_grad = False

    # -- metadata
    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        return self.shape if dim is None else self._shape[norm_dim(dim, len(self._shape))]

    def dim(self):
        return len(self._shape)

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        return math.prod(self._shape)

    def __len__(self):
        return self._shape[0]

    @property
    def T(self):
        return mark(self._like(list(reversed(self._shape))), transposed(self))

    def _like(self, shape=None, dtype=None):
        return Tensor(self._shape if shape is None else shape, dtype or self.dtype)

    # -- conversions: keep the distribution
    def _same(self, dtype=None):
        t = Tensor(self._shape, dtype or self.dtype, self.init)
        if t.dtype is self.dtype:
            mark(t, getattr(self, "_kopt_src", None))
        return t

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, DType):
                dtype = a
        return self._same(dtype)

    def cuda(self, *a, **k):
        return self._same()

    def cpu(self):
        return self._same()

    contiguous = clone = detach = cpu

    def float(self):
        return self._same(DTYPES["float32"])

    def half(self):
        return self._same(DTYPES["float16"])

    def double(self):
        return self._same(DTYPES["float64"])

    def long(self):
        return self._same(DTYPES["int64"])

    def int(self):
        return self._same(DTYPES["int32"])

    def bool(self):
        return self._same(DTYPES["bool"])

    def requires_grad_(self, flag=True):
        return self

    # -- arithmetic: affine maps of a uniform or normal keep a known distribution
    def _affine(self, scale, shift):
        init = None
        if self.init and isinstance(scale, (int, float)) and isinstance(shift, (int, float)):
            kind = self.init["kind"]
            if kind == "uniform" and scale != 0:
                lo, hi = self.init["low"] * scale + shift, self.init["high"] * scale + shift
                init = {"kind": "uniform", "low": min(lo, hi), "high": max(lo, hi)}
            elif kind == "normal" and scale != 0:
                init = {"kind": "normal", "mean": self.init["mean"] * scale + shift,
                        "stddev": self.init["stddev"] * abs(scale)}
        t = self._like()
        t.init = init
        g = gemm_of(self)
        if g and shift == 0 and isinstance(scale, (int, float)) and scale != 0:
            if g["activation"] == "none":  # a scale before any activation scales the product and the bias
                mark(t, dict(g, alpha=g["alpha"] * scale, bias_scale=g["bias_scale"] * scale))
            elif g["activation"] == "relu" and scale > 0:  # folds back into alpha and the bias scale
                mark(t, dict(g, post_scale=g["post_scale"] * scale))
        return t

    def _binary(self, other, name):
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            if name == "mul":
                return self._affine(other, 0.0)
            if name == "add":
                return self._affine(1.0, other)
            if name == "sub":
                return self._affine(1.0, -other)
            if name == "truediv" and other != 0:
                return self._affine(1.0 / other, 0.0)
            return self._like()
        if not isinstance(other, Tensor):
            raise Unmodelled(f"{name} of a tensor and {type(other).__name__}")
        dtype = self.dtype if self.dtype.is_floating_point or not other.dtype.is_floating_point else other.dtype
        result = Tensor(broadcast(self._shape, other._shape), dtype)
        if name == "add":
            mark(result, add_bias(self, other) or add_bias(other, self))
        return result

    def __add__(self, o):
        return self._binary(o, "add")

    def __radd__(self, o):
        return self._binary(o, "add")

    def __sub__(self, o):
        return self._binary(o, "sub")

    def __rsub__(self, o):
        return self._affine(-1.0, o) if isinstance(o, (int, float)) else self._binary(o, "rsub")

    def __mul__(self, o):
        return self._binary(o, "mul")

    def __rmul__(self, o):
        return self._binary(o, "mul")

    def __truediv__(self, o):
        return self._binary(o, "truediv")

    def __rtruediv__(self, o):
        return self._binary(o, "rtruediv")

    def __pow__(self, o):
        return self._binary(o, "pow")

    def __rpow__(self, o):
        return self._binary(o, "rpow")

    def __neg__(self):
        return self._affine(-1.0, 0.0)

    def _compare(self, o):
        return Tensor(broadcast(self._shape, shape_of(o)), DTYPES["bool"])

    __lt__ = __le__ = __gt__ = __ge__ = _compare

    def __eq__(self, o):
        return self._compare(o)

    def __ne__(self, o):
        return self._compare(o)

    __hash__ = object.__hash__

    def __matmul__(self, o):
        return matmul(self, o)

    def __getitem__(self, key):
        raise Unmodelled("tensor indexing")

    def __bool__(self):
        raise Unmodelled("the truth value of a tensor")

    def __float__(self):
        raise Unmodelled("the value of a tensor")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        fn = TENSOR_FUNCTIONS.get(name)
        if fn is None:
            raise Unmodelled(f"Tensor.{name}")
        return lambda *a, **k: fn(self, *a, **k)


# ---------------------------------------------------------------- operators


def same_shape(x, *a, **k):
    if not isinstance(x, Tensor):
        raise Unmodelled("an operator on a non-tensor")
    return x._like()


def where(cond, a, b):
    return Tensor(broadcast(broadcast(shape_of(cond), shape_of(a)), shape_of(b)), dtype_of(a))


def reduce_shape(x, dim=None, keepdim=False, dtype=None):
    rank = x.dim()
    if dim is None:
        return Tensor([1] * rank if keepdim else [], dtype or x.dtype)
    dims = {norm_dim(d, rank) for d in (dim if isinstance(dim, (list, tuple)) else [dim])}
    shape = [1 if i in dims else s for i, s in enumerate(x._shape)] if keepdim else \
        [s for i, s in enumerate(x._shape) if i not in dims]
    return Tensor(shape, dtype or x.dtype)


def reduction(x, dim=None, keepdim=False, **k):
    return reduce_shape(x, dim, keepdim)


def arg_reduction(x, dim=None, keepdim=False):
    return reduce_shape(x, dim, keepdim, DTYPES["int64"])


def max_like(x, dim=None, keepdim=False, **k):
    if isinstance(dim, Tensor):
        return Tensor(broadcast(x._shape, dim._shape), x.dtype)
    if dim is None:
        return reduce_shape(x)
    values = reduce_shape(x, dim, keepdim)
    return (values, reduce_shape(x, dim, keepdim, DTYPES["int64"]))


def norm(x, p="fro", dim=None, keepdim=False, **k):
    return reduce_shape(x, dim, keepdim)


# Floating-point operations of the matrix products the forward pass made
# (2 per multiply-add): a lower bound of the model's FLOPs, for the roofline.
MATMUL_FLOPS = [0]


def matmul(a, b):
    sa, sb = a._shape, b._shape
    if len(sa) >= 1 and len(sb) >= 1:
        inner = sa[-1]
        rows = math.prod(sa[:-1]) if len(sa) > 1 else 1
        cols = sb[-1] if len(sb) > 1 else 1
        batch = math.prod(broadcast(sa[:-2], sb[:-2])) if len(sa) > 2 or len(sb) > 2 else 1
        if len(sa) > 2:
            rows = sa[-2]
        MATMUL_FLOPS[0] += 2 * batch * rows * cols * inner
    if len(sa) == 1 and len(sb) == 1:
        return Tensor([], a.dtype)
    if len(sb) == 1:
        if sa[-1] != sb[0]:
            raise ProbeError(f"matmul of {sa} and {sb}")
        return Tensor(sa[:-1], a.dtype)
    if len(sa) == 1:
        if sa[0] != sb[-2]:
            raise ProbeError(f"matmul of {sa} and {sb}")
        return Tensor(sb[:-2] + sb[-1:], a.dtype)
    if sa[-1] != sb[-2]:
        raise ProbeError(f"matmul of shapes {sa} and {sb}: inner dimensions {sa[-1]} and {sb[-2]} differ")
    result = Tensor(broadcast(sa[:-2], sb[:-2]) + [sa[-2], sb[-1]], a.dtype)
    la, lb = leaf_of(a), leaf_of(b)
    if la and lb and len(sa) == len(sb) and len(sa) in (2, 3) and sa[:-2] == sb[:-2]:
        mark(result, {"kind": "gemm", "a": la["ref"], "transpose_a": la["t"], "b": lb["ref"],
                      "transpose_b": lb["t"], "bias": None, "activation": "none", "alpha": 1.0,
                      "bias_scale": 1.0, "post_scale": 1.0})
    return result


def transpose(x, d0, d1):
    s = list(x._shape)
    d0, d1 = norm_dim(d0, len(s)), norm_dim(d1, len(s))
    s[d0], s[d1] = s[d1], s[d0]
    return mark(x._like(s), transposed(x) if {d0, d1} == {len(s) - 2, len(s) - 1} else None)


def t(x):
    return mark(x._like(list(reversed(x._shape))), transposed(x))


def permute(x, *dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return x._like([x._shape[norm_dim(d, x.dim())] for d in dims])


def reshape(x, *shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    shape = list(shape)
    if shape.count(-1) > 1:
        raise ProbeError(f"reshape to {shape}")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape[shape.index(-1)] = x.numel() // known if known else 0
    if math.prod(shape) != x.numel():
        raise ProbeError(f"reshape of {x._shape} to {shape}")
    return x._like(shape)


def flatten(x, start_dim=0, end_dim=-1):
    if x.dim() == 0:
        return x._like([1])
    s, e = norm_dim(start_dim, x.dim()), norm_dim(end_dim, x.dim())
    return x._like(x._shape[:s] + [math.prod(x._shape[s:e + 1])] + x._shape[e + 1:])


def unsqueeze(x, dim):
    s = list(x._shape)
    dim = dim + len(s) + 1 if dim < 0 else dim
    s.insert(dim, 1)
    return x._like(s)


def squeeze(x, dim=None):
    if dim is None:
        return x._like([s for s in x._shape if s != 1])
    s = list(x._shape)
    d = norm_dim(dim, len(s))
    if s[d] == 1:
        del s[d]
    return x._like(s)


def cat(tensors, dim=0):
    first = tensors[0]
    d = norm_dim(dim, first.dim())
    s = list(first._shape)
    s[d] = sum(tt._shape[d] for tt in tensors)
    return first._like(s)


def linear(x, weight, bias=None):
    MATMUL_FLOPS[0] += 2 * math.prod(x._shape[:-1]) * weight._shape[0] * weight._shape[1]
    result = Tensor(x._shape[:-1] + [weight._shape[0]], x.dtype)
    lx, lw = leaf_of(x), leaf_of(weight)
    lbias = leaf_of(bias) if bias is not None else None
    if lx and lw and x.dim() == 2 and weight.dim() == 2 and (bias is None or (lbias and not lbias["t"])):
        mark(result, {"kind": "gemm", "a": lx["ref"], "transpose_a": lx["t"], "b": lw["ref"],
                      "transpose_b": not lw["t"], "bias": lbias["ref"] if lbias else None,
                      "activation": "none", "alpha": 1.0, "bias_scale": 1.0, "post_scale": 1.0})
    return result


# ---------------------------------------------------------------- GEMM recognition
# Which tensors come straight from a forward argument or a parameter (a "leaf", maybe transposed), and
# whether the forward pass is one matrix product of two of them with an epilogue the builtin
# generator's CUTLASS path fuses: post_scale * act(alpha * op(a) @ op(b) + bias) (docs/tuning.md
# "GEMM tasks"). Every other operation makes a tensor without a mark, so anything else in the forward
# pass leaves the output unrecognised.


def mark(t, src):
    if src is not None and isinstance(t, Tensor):
        t._kopt_src = src
    return t


def leaf_of(t):
    src = getattr(t, "_kopt_src", None) if isinstance(t, Tensor) else None
    return src if src and src.get("kind") == "leaf" else None


def gemm_of(t):
    src = getattr(t, "_kopt_src", None) if isinstance(t, Tensor) else None
    return src if src and src.get("kind") == "gemm" else None


def transposed(x):
    leaf = leaf_of(x)
    return dict(leaf, t=not leaf["t"]) if leaf and x.dim() == 2 else None


def add_bias(product, other):
    g, leaf = gemm_of(product), leaf_of(other)
    if not g or not leaf or leaf["t"] or g["bias"] is not None or g["activation"] != "none":
        return None
    if product.dim() != 2 or other._shape not in ([product._shape[-1]],
                                                                             [1, product._shape[-1]]):
        return None
    return dict(g, bias=leaf["ref"], bias_scale=1.0)


def activation(x, name):
    """relu / gelu (erf form) after a product: the mark moves on when the epilogue can fuse it."""
    result = x._like()
    g = gemm_of(x)
    if not g or g["activation"] != "none":
        return result
    return mark(result, dict(g, activation=name))


def relu(x, *a, **k):
    return activation(x, "relu")


def gelu(x, approximate="none", *a, **k):
    return activation(x, "gelu") if approximate == "none" else x._like()


def loss(a, b=None, *args, reduction="mean", **k):
    return a._like() if reduction == "none" else Tensor([], a.dtype)


def cross_entropy(logits, target, *a, reduction="mean", **k):
    return Tensor(target._shape if reduction == "none" else [], logits.dtype)


def sdpa(q, k, v, *a, **kw):
    return Tensor(q._shape[:-1] + v._shape[-1:], q.dtype)


UNARY = ("relu relu_ sigmoid tanh exp exp_ log log2 log10 log1p abs sqrt rsqrt sin cos neg sign "
         "reciprocal floor ceil round trunc erf erfc expm1 square gelu silu mish selu elu celu "
         "leaky_relu hardtanh hardsigmoid hardswish softplus softsign relu6 logsigmoid clamp "
         "clamp_ clip softmax log_softmax cumsum cumprod layer_norm group_norm instance_norm "
         "batch_norm normalize dropout pow mul add sub div fmod remainder tanhshrink "
         "hardshrink softshrink threshold sigmoid_ tanh_ mul_ add_ sub_ div_ masked_fill "
         "logcumsumexp rms_norm").split()

TENSOR_FUNCTIONS = {name: same_shape for name in UNARY}
for _name in ("mul", "add", "sub", "div", "pow", "fmod", "remainder", "maximum", "minimum",
              "mul_", "add_", "sub_", "div_", "eq", "ne", "lt", "le", "gt", "ge", "atan2"):
    TENSOR_FUNCTIONS[_name] = (lambda op: lambda a, b=None, *r, **k: (
        a._binary(b, op) if isinstance(a, Tensor) else Tensor(shape_of(b), dtype_of(b))))(
            {"div": "truediv", "div_": "truediv", "mul_": "mul", "add_": "add", "sub_": "sub"}.get(_name, _name))
TENSOR_FUNCTIONS.update({
    "sum": reduction, "mean": reduction, "prod": reduction, "std": reduction, "var": reduction,
    "amax": reduction, "amin": reduction, "logsumexp": reduction, "all": reduction, "any": reduction,
    "max": max_like, "min": max_like, "argmax": arg_reduction, "argmin": arg_reduction,
    "norm": norm, "matmul": matmul, "mm": matmul, "bmm": matmul, "transpose": transpose,
    "t": t, "permute": permute, "reshape": reshape, "view": reshape, "flatten": flatten,
    "unsqueeze": unsqueeze, "squeeze": squeeze, "where": where, "expand_as": lambda x, o: o._like(),
    "type_as": lambda x, o: x._same(o.dtype), "diag": None,
})
TENSOR_FUNCTIONS = {k: v for k, v in TENSOR_FUNCTIONS.items() if v is not None}
TENSOR_FUNCTIONS.update({"relu": relu, "gelu": gelu})


def functional_table():
    table = dict(TENSOR_FUNCTIONS)
    table.update({"linear": linear, "mse_loss": loss, "l1_loss": loss, "smooth_l1_loss": loss,
                  "huber_loss": loss, "kl_div": loss, "binary_cross_entropy": loss,
                  "cross_entropy": cross_entropy, "nll_loss": cross_entropy,
                  "hinge_embedding_loss": loss, "cosine_similarity": lambda a, b, dim=1, **k: reduce_shape(a, dim),
                  "triplet_margin_loss": loss, "scaled_dot_product_attention": sdpa, "cat": cat})
    return table


# ---------------------------------------------------------------- factories


def parse_size(args, kwargs):
    size = kwargs.get("size")
    if size is None:
        size = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    out = []
    for s in size:
        if isinstance(s, bool) or not isinstance(s, int):
            raise ProbeError(f"a tensor size must be integers, got {s!r}")
        out.append(s)
    return out


def resolve_dtype(kwargs, fallback=None):
    d = kwargs.get("dtype")
    if d is None:
        return fallback or default_dtype()
    if not isinstance(d, DType):
        raise ProbeError(f"dtype {d!r} is not a torch dtype")
    return d


def factory(init):
    def make(*args, **kwargs):
        return Tensor(parse_size(args, kwargs), resolve_dtype(kwargs), dict(init) if init else None)
    return make


def randint(*args, **kwargs):
    ints = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
    size = kwargs.get("size") or next((a for a in args if isinstance(a, (list, tuple))), None)
    low, high = (0, ints[0]) if len(ints) == 1 else (ints[0], ints[1]) if len(ints) >= 2 else \
        (kwargs.get("low", 0), kwargs.get("high"))
    if high is None or size is None:
        raise ProbeError("torch.randint needs high and size")
    return Tensor(parse_size([size], {}), resolve_dtype(kwargs, DTYPES["int64"]),
                  {"kind": "int_range", "low": low, "high": high - 1})


def like(init):
    def make(x, **kwargs):
        return Tensor(x._shape, resolve_dtype(kwargs, x.dtype), dict(init) if init else None)
    return make


def full(size, value, **kwargs):
    kind = {"kind": "zeros"} if value == 0 else {"kind": "ones"} if value == 1 else None
    return Tensor(parse_size([size], {}), resolve_dtype(kwargs), kind)


def tensor(data, dtype=None, **k):
    if isinstance(data, (int, float)):
        return Tensor([], dtype or (DTYPES["int64"] if isinstance(data, int) else default_dtype()))
    raise Unmodelled("torch.tensor of a list")


def arange(*args, **kwargs):
    nums = [a for a in args if isinstance(a, (int, float))]
    start, end, step = (0, nums[0], 1) if len(nums) == 1 else (nums + [1])[:3]
    return Tensor([max(0, math.ceil((end - start) / step))], resolve_dtype(kwargs, DTYPES["int64"]))


# ---------------------------------------------------------------- nn


class Parameter(Tensor):
    def __init__(self, data=None, requires_grad=True):
        if not isinstance(data, Tensor):
            raise ProbeError("nn.Parameter of a non-tensor")
        super().__init__(data._shape, data.dtype, data.init)
        self.origin = "parameter"


class Module:
    def __init__(self, *a, **k):
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name, value):
        if "_params" not in self.__dict__:
            Module.__init__(self)
        if isinstance(value, Parameter):
            self._params[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def register_buffer(self, name, value, persistent=True):
        object.__setattr__(self, name, value)

    def register_parameter(self, name, value):
        setattr(self, name, value)

    def named_parameters(self, prefix=""):
        for name, p in self.__dict__.get("_params", {}).items():
            yield prefix + name, p
        for name, m in self.__dict__.get("_modules", {}).items():
            yield from m.named_parameters(prefix + name + ".")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def __call__(self, *a, **k):
        return self.forward(*a, **k)

    def to(self, *a, **k):
        return self

    cuda = eval = train = to

    def forward(self, *a, **k):
        raise Unmodelled(f"nn.{type(self).__name__}")


def uniform_bound(fan_in):
    b = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    return {"kind": "uniform", "low": -b, "high": b}


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, **k):
        super().__init__()
        self.weight = Parameter(Tensor([out_features, in_features], init=uniform_bound(in_features)))
        if bias:
            self.bias = Parameter(Tensor([out_features], init=uniform_bound(in_features)))

    def forward(self, x):
        return linear(x, self.weight, self.__dict__.get("_params", {}).get("bias"))


class Activation(Module):
    def __init__(self, *a, **k):
        super().__init__()

    def forward(self, x, *a, **k):
        return x._like()


class Norm(Module):
    def __init__(self, shape=None, *a, elementwise_affine=True, affine=True, bias=True, **k):
        super().__init__()
        shape = shape if shape is not None else k.get("normalized_shape", k.get("num_features"))
        shape = [shape] if isinstance(shape, int) else list(shape)
        if elementwise_affine and affine:
            self.weight = Parameter(Tensor(shape, init={"kind": "ones"}))
            if bias:
                self.bias = Parameter(Tensor(shape, init={"kind": "zeros"}))

    def forward(self, x):
        return x._like()


class GroupNorm(Norm):
    def __init__(self, num_groups, num_channels, *a, **k):
        super().__init__(num_channels, *a, **k)


class InstanceNorm(Norm):
    def __init__(self, num_features, *a, affine=False, **k):
        super().__init__(num_features, affine=affine)


class Unsupported(Module):
    def __init__(self, *a, **k):
        super().__init__()
        raise Unmodelled(f"nn.{type(self).__name__}")


def make_nn():
    nn = types.ModuleType("torch.nn")
    nn.Module, nn.Parameter, nn.Linear = Module, Parameter, Linear
    for name in ("ReLU ReLU6 LeakyReLU Sigmoid Tanh GELU SELU ELU CELU SiLU Mish Softplus Softsign "
                 "Hardtanh Hardsigmoid Hardswish Softmax LogSoftmax Dropout Identity Tanhshrink "
                 "Hardshrink Softshrink LogSigmoid Threshold").split():
        setattr(nn, name, type(name, (Activation,), {}))
    nn.ReLU = type("ReLU", (Activation,), {"forward": lambda self, x, *a, **k: relu(x)})
    nn.GELU = type("GELU", (Activation,), {
        "__init__": lambda self, approximate="none", *a, **k: (Activation.__init__(self),
                                                              setattr(self, "approximate", approximate))[0],
        "forward": lambda self, x, *a, **k: gelu(x, self.approximate)})
    for name in ("LayerNorm", "RMSNorm"):
        setattr(nn, name, type(name, (Norm,), {}))
    for name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"):
        setattr(nn, name, type(name, (Norm,), {}))
    nn.GroupNorm = GroupNorm
    for name in ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"):
        setattr(nn, name, type(name, (InstanceNorm,), {}))
    for name in ("Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d MaxPool1d "
                 "MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d "
                 "AdaptiveAvgPool3d AdaptiveMaxPool2d Embedding LSTM GRU RNN MultiheadAttention "
                 "Sequential ModuleList ModuleDict TransformerEncoderLayer Upsample PixelShuffle "
                 "Bilinear").split():
        setattr(nn, name, type(name, (Unsupported,), {}))
    functional = types.ModuleType("torch.nn.functional")
    table = functional_table()

    def missing(name):
        def fail(*a, **k):
            raise Unmodelled(f"torch.nn.functional.{name}")
        return fail

    functional.__getattr__ = lambda name: table.get(name) or missing(name)
    nn.functional = functional

    def missing_module(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnmodelledAttribute(f"nn.{name}")

    nn.__getattr__ = missing_module
    init = types.ModuleType("torch.nn.init")
    init.__getattr__ = lambda name: (lambda *a, **k: a[0] if a else None)
    nn.init = init
    return nn, functional, init


def make_torch():
    torch = types.ModuleType("torch")
    torch.__kopt_stand_in__ = True
    for name, d in DTYPES.items():
        setattr(torch, name, d)
    for alias, name in ALIASES.items():
        setattr(torch, alias, DTYPES[name])
    torch.dtype, torch.Tensor, torch.Size = DType, Tensor, Size
    torch.rand = factory({"kind": "uniform", "low": 0.0, "high": 1.0})
    torch.randn = factory({"kind": "normal", "mean": 0.0, "stddev": 1.0})
    torch.zeros = factory({"kind": "zeros"})
    torch.ones = factory({"kind": "ones"})
    torch.empty = factory(None)
    torch.rand_like = like({"kind": "uniform", "low": 0.0, "high": 1.0})
    torch.randn_like = like({"kind": "normal", "mean": 0.0, "stddev": 1.0})
    torch.zeros_like, torch.ones_like, torch.empty_like = like({"kind": "zeros"}), like({"kind": "ones"}), like(None)
    torch.randint, torch.full, torch.tensor, torch.arange = randint, full, tensor, arange
    torch.manual_seed = lambda *a, **k: None
    torch.no_grad = lambda: types.SimpleNamespace(__enter__=lambda *a: None, __exit__=lambda *a: None)
    torch.device = lambda *a, **k: a[0] if a else "cuda"
    torch.cuda = types.SimpleNamespace(is_available=lambda: True, synchronize=lambda *a: None,
                                       manual_seed=lambda *a: None)
    torch.set_default_dtype = lambda d: None
    nn, functional, init = make_nn()
    torch.nn = nn
    table = functional_table()

    def top(name):
        fn = table.get(name)
        if fn is None:
            raise UnmodelledAttribute(f"torch.{name}")
        return fn

    torch.__getattr__ = top
    return {"torch": torch, "torch.nn": nn, "torch.nn.functional": functional, "torch.nn.init": init}


# ---------------------------------------------------------------- the probe

ALLOWED_IMPORTS = {"math", "typing", "numbers", "functools", "itertools", "collections", "dataclasses",
                   "operator", "abc", "enum", "__future__"}


class Importer:
    """Serves the stand-in for torch; allows a few pure standard modules;
    anything else is a clear error (kopt does not install or run it)."""

    def __init__(self, modules, path):
        self.modules, self.path = modules, path
        self.real = builtins.__import__

    def __call__(self, name, globals=None, locals=None, fromlist=(), level=0):
        root = name.split(".")[0]
        if name in self.modules:
            return self.modules[name] if fromlist else self.modules[root]
        if root in ALLOWED_IMPORTS:
            return self.real(name, globals, locals, fromlist, level)
        if root == "torch":
            raise ProbeError(f"it imports {name}, which kopt's torch stand-in does not provide")
        raise ProbeError(f"it imports module '{name}', which kopt cannot import for a KernelBench problem "
                         f"(kopt runs only the problem's torch code)")


def describe_value(v):
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "float", "value": v}
    if isinstance(v, (list, tuple)):
        return {"kind": "list", "items": [describe_value(x) for x in v]}
    if isinstance(v, str):
        return {"kind": "str", "value": v}
    if v is None:
        return {"kind": "none"}
    if isinstance(v, Tensor):
        return describe_tensor(v)
    raise ProbeError(f"value {v!r} of type {type(v).__name__} is neither a tensor nor a number")


BOOL_AS_U8 = "a bool tensor: the entry point gets it as u8, 0 (false) or 1 (true)"


def describe_tensor(t):
    if t.dtype.name == "bool":
        # kopt tasks have no bool dtype: u8 with values 0 and 1 (PyTorch's own bool layout, one byte
        # each); the reference child turns it back into a bool tensor (torch_dtype).
        return {"kind": "tensor", "shape": list(t.shape), "dtype": "u8", "torch_dtype": "bool",
                "init": {"kind": "int_range", "low": 0, "high": 1}, "init_note": BOOL_AS_U8}
    return {"kind": "tensor", "shape": list(t.shape), "dtype": t.dtype.kopt, "init": t.init}


def run_problem(path, source, modules):
    namespace = {"__name__": "kopt_kernelbench_problem", "__file__": path,
                 "__builtins__": dict(builtins.__dict__, __import__=Importer(modules, path))}
    try:
        code = compile(source, path, "exec")
    except SyntaxError as e:
        raise ProbeError(f"line {e.lineno}: syntax error: {e.msg}")
    try:
        exec(code, namespace)
    except (ProbeError, Unmodelled):
        raise
    except Exception as e:
        raise ProbeError(f"running the file failed: {type(e).__name__}: {e}")
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in namespace:
            raise ProbeError(f"it does not define {name} (a KernelBench problem defines class Model, "
                             f"get_inputs() and get_init_inputs())")
    return namespace


def call(namespace, name):
    try:
        value = namespace[name]()
    except Unmodelled:
        raise  # real PyTorch may run it (the meta-device fallback)
    except ProbeError as e:
        raise ProbeError(f"{name}() failed: {e}")
    except Exception as e:
        raise ProbeError(f"{name}() failed: {type(e).__name__}: {e}")
    if not isinstance(value, (list, tuple)):
        raise ProbeError(f"{name}() returned {type(value).__name__}, expected a list")
    return list(value)


def outputs_of(result):
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    out = []
    for r in items:
        if isinstance(r, Tensor):
            out.append({"shape": list(r.shape), "dtype": "u8" if r.dtype.name == "bool" else r.dtype.kopt,
                        **({"torch_dtype": "bool"} if r.dtype.name == "bool" else {})})
        else:
            raise ProbeError(f"forward() returned {type(r).__name__}, expected tensors")
    return out


def probe_stand_in(path, source):
    ns = run_problem(path, source, make_torch())
    forward = getattr(ns["Model"], "forward", None)
    names = list(forward.__code__.co_varnames[1:forward.__code__.co_argcount]) if forward else []
    try:
        inputs = call(ns, "get_inputs")
        init_inputs = call(ns, "get_init_inputs")
    except Unmodelled as e:  # the inputs themselves need real PyTorch (probe_real_torch describes them)
        return {"input_names": names, "unmodelled": str(e)}
    record = {"inputs": [describe_value(v) for v in inputs], "input_names": names,
              "init_inputs": [describe_value(v) for v in init_inputs]}
    try:
        model = ns["Model"](*init_inputs)
        record["parameters"] = [dict(describe_tensor(p), name=n) for n, p in model.named_parameters()]
        for i, v in enumerate(inputs):
            mark(v, {"kind": "leaf", "ref": {"input": i}, "t": False})
        for n, p in model.named_parameters():
            mark(p, {"kind": "leaf", "ref": {"parameter": n}, "t": False})
        MATMUL_FLOPS[0] = 0
        result = model(*inputs)
        record["outputs"] = outputs_of(result)
        record["shapes_from"] = "stand-in"
        if MATMUL_FLOPS[0] > 0:
            record["matmul_flops"] = MATMUL_FLOPS[0]
        g = gemm_of(result)
        if g and not isinstance(result, (list, tuple)):
            record["gemm"] = {k: v for k, v in g.items() if k != "kind"}
    except Unmodelled as e:
        record["unmodelled"] = str(e)
    except ProbeError as e:
        raise ProbeError(f"Model: {e}")
    except Exception as e:
        raise ProbeError(f"Model({', '.join(map(repr, init_inputs))}) or its forward failed in kopt's "
                         f"stand-in: {type(e).__name__}: {e}")
    return record


def probe_real_torch(path, source, record):
    import torch  # the real one

    kopt = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64",
            torch.int64: "i64", torch.int32: "i32", torch.uint8: "u8", torch.bool: "u8"}
    ns = {"__name__": "kopt_kernelbench_problem", "__file__": path}
    with torch.device("meta"):
        exec(compile(source, path, "exec"), ns)
        inputs = ns["get_inputs"]()
        init_inputs = ns["get_init_inputs"]()
        model = ns["Model"](*init_inputs)
        result = model(*inputs)
    if "inputs" not in record:  # get_inputs needed PyTorch: shapes and dtypes from the meta device
        def describe_real(v):
            if isinstance(v, torch.Tensor):
                if v.dtype == torch.bool:
                    return {"kind": "tensor", "shape": list(v.shape), "dtype": "u8", "torch_dtype": "bool",
                            "init": {"kind": "int_range", "low": 0, "high": 1}, "init_note": BOOL_AS_U8}
                init = None if v.is_floating_point() else {"kind": "int_range", "low": 0, "high": 100}
                return {"kind": "tensor", "shape": list(v.shape), "dtype": kopt[v.dtype], "init": init}
            return describe_value(v)
        record["inputs"] = [describe_real(v) for v in inputs]
        record["init_inputs"] = [describe_value(v) for v in init_inputs]
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    record["outputs"] = [dict({"shape": list(r.shape), "dtype": kopt[r.dtype]},
                              **({"torch_dtype": "bool"} if r.dtype == torch.bool else {})) for r in items]
    params = []
    for n, p in model.named_parameters():
        fan_in = p.shape[1] * math.prod(p.shape[2:]) if p.dim() > 1 else 0
        params.append({"kind": "tensor", "name": n, "shape": list(p.shape), "dtype": kopt[p.dtype],
                       "init": None})
    # distributions: the stand-in's where it saw the same parameter, else uniform by fan-in
    seen = {p["name"]: p for p in record.get("parameters", [])}
    last_fan_in = 1
    for p in params:
        if p["name"] in seen:
            p["init"] = seen[p["name"]]["init"]
        else:
            shape = p["shape"]
            if len(shape) > 1:
                last_fan_in = math.prod(shape[1:])
            p["init"] = uniform_bound(last_fan_in)
    record["parameters"] = params
    record["shapes_from"] = "torch " + torch.__version__ + " (meta device)"
    record.pop("unmodelled", None)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    real = "--real-torch" in argv
    if len(args) != 1:
        print("usage: kernelbench_probe.py [--real-torch] PROBLEM.py", file=sys.stderr)
        return 2
    path = args[0]
    try:
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except OSError as e:
            raise ProbeError(f"cannot read it: {e.strerror}")
        record = probe_stand_in(path, source)
        if real or "unmodelled" in record:
            try:
                import torch  # noqa: F401
                have_torch = not getattr(sys.modules["torch"], "__kopt_stand_in__", False)
            except ImportError:
                have_torch = False
            if have_torch:
                try:
                    probe_real_torch(path, source, record)
                except Exception as e:
                    raise ProbeError(f"PyTorch (meta device) could not run the model: {type(e).__name__}: {e}")
        if "unmodelled" in record:
            raise ProbeError(f"kopt's torch stand-in cannot follow the forward pass ({record['unmodelled']} "
                             f"is not modelled) and PyTorch is not installed here: import it where PyTorch "
                             f"is installed")
        for i, v in enumerate(record["inputs"]):
            if v["kind"] == "tensor" and v["init"] is None and True:
                v["init"] = {"kind": "normal", "mean": 0.0, "stddev": 1.0}
                v["init_note"] = "values not drawn from a known distribution (derived); kopt draws normal(0, 1)"
    except ProbeError as e:
        print(f"kopt-probe-error: {path}: {e}", file=sys.stderr)
        return 3
    record["schema"] = SCHEMA
    record["file"] = path
    json.dump(record, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
