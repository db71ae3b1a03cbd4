"""The trace format's layouts and constants, read from include/streamcheck/trace_format.h,
their one home: the test reader and writer (sctrace.py) and the GPU helpers take sizes,
field orders and enum values from here, never from a copy.

The header pads every struct by hand (checked by static_assert), so a struct's fields lie
one after the other: their struct-module format follows from their declared types.
"""
import pathlib
import re
import struct

HEADER = pathlib.Path(__file__).resolve().parents[2] / "include" / "streamcheck" / \
    "trace_format.h"

_TYPES = {"uint64_t": "Q", "int64_t": "q", "uint32_t": "I", "int32_t": "i", "uint16_t": "H",
          "int16_t": "h", "uint8_t": "B", "int8_t": "b", "char": "c"}


def _source():
    text = HEADER.read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)     # comments
    return re.sub(r"//[^\n]*", " ", text)


def _structs(text):
    """{struct name: [(field, format, C member), ...]} in declaration order. An array of bytes
    is one field ("20s"); an array of integers is one field per element (object_id0, ...,
    whose C member is object_id[0], ...)."""
    out = {}
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        fields = []
        for decl in m.group(2).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            ctype, names = decl.split(None, 1)
            code = _TYPES[ctype]
            for name in (n.strip() for n in names.split(",")):
                arr = re.fullmatch(r"(\w+)\[(\d+)\]", name)
                if not arr:
                    fields.append((name, code, name))
                elif code in "cB":
                    fields.append((arr.group(1), f"{arr.group(2)}s", arr.group(1)))
                else:
                    fields += [(f"{arr.group(1)}{i}", code, f"{arr.group(1)}[{i}]")
                               for i in range(int(arr.group(2)))]
        out[m.group(3)] = fields
    return out


def _constants(text):
    """{NAME: value} of every enum constant and integer #define."""
    out = {}
    for body in re.findall(r"enum\s+\w*\s*\{(.*?)\}", text, re.S):
        for item in body.split(","):
            if "=" in item:
                name, value = (s.strip() for s in item.split("=", 1))
                out[name] = _eval(value)
    for name, value in re.findall(r"#define\s+(SC_\w+)\s+([0-9][0-9a-fA-FxXu ()<]*)\n", text):
        out[name] = _eval(value)
    return out


def _eval(expr):
    expr = re.sub(r"(?<=[0-9a-fA-F])[uU]\b", "", expr.strip())
    if not re.fullmatch(r"[0-9a-fA-FxX ()<]+", expr):
        raise ValueError(f"trace_format.h: cannot read {expr!r}")
    return eval(expr, {"__builtins__": {}})     # digits, shifts and parentheses only


_TEXT = _source()
STRUCTS = _structs(_TEXT)
CONSTANTS = _constants(_TEXT)


def layout(name):
    """(struct.Struct, "field names") of a struct of the header, little-endian, unpadded."""
    fields = STRUCTS[name]
    return struct.Struct("<" + "".join(code for _, code, _ in fields)), \
        " ".join(field for field, _, _ in fields)
