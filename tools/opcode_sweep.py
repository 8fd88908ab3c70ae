#!/usr/bin/env python3
"""Sweeps the opcode space of each encoding of a layout file with llvm-mc-22 and writes which
opcodes exist on a target, with LLVM's mnemonic, the RDNA 3 (gfx1100) name of the same
instruction and the encoding variants the opcode accepts.

The layout file is in the dialect of the wheel's `ins.py` (`semantics/layouts/gfx10.py`).
For every base class with an `op` field, every opcode value is put in a word whose other
fields hold ordinary operands (v1, s2, ...), and llvm-mc-22 disassembles all the words in one
run (a unique `s_movk_i32 s0, K` after candidate K keeps them apart). Each mnemonic LLVM
prints is then assembled for gfx1100 from the same text: the mnemonic llvm-mc prints there is
the RDNA 3 instruction, whose name the database looks up in the wheel (so `s_andn2_b32` is
`s_and_not1_b32`, `global_load_dword` is `global_load_b32`). No wheel text is read.

Regenerate (the data the tests read is checked in):
    python3 tools/opcode_sweep.py semantics/layouts/gfx10.py gfx1030 > semantics/targets/gfx1030.tsv
    python3 tools/opcode_sweep.py semantics/layouts/gfx10.py gfx1010 > semantics/targets/gfx1010.tsv
Output columns: encoding, opcode, llvm mnemonic, gfx1100 mnemonic (`-`: none), variants
(comma-separated suffixes of the layout's variant classes the opcode decodes in: LIT, DPP16,
DPP8, SDWA; `-`: none).
"""
import re
import subprocess
import sys

MC = "llvm-mc-22"


def read_layout(path):
    classes = {}
    order = []
    cur = None
    for line in open(path):
        m = re.match(r"class (\w+)\((\w+)\):", line)
        if m:
            cur = m.group(1)
            classes[cur] = {"base": None if m.group(2) == "Inst" else m.group(2), "fields": {}}
            order.append(cur)
            continue
        m = re.match(r"\s+(\w+) = (\w+)\((\d+), (\d+)(?:, (0b[01]+|\d+))?", line)
        if m and cur:
            fixed = int(m.group(5), 0) if m.group(2) == "FixedBitField" else None
            classes[cur]["fields"][m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(4)), fixed)
    return classes, order


def all_fields(classes, name):
    c = classes[name]
    fields = dict(all_fields(classes, c["base"])) if c["base"] else {}
    fields.update(c["fields"])
    return fields


def put(bits, hi, lo, value):
    mask = ((1 << (hi - lo + 1)) - 1) << lo
    return (bits & ~mask) | ((value << lo) & mask)


# Ordinary operand values per field name: v1/s2-like registers, sources v1 (256 + 1).
ORDINARY = {
    "vdst": 1, "addr": 2, "vdata": 1, "vaddr": 2,
    "srsrc": 1, "soffset": 3, "sdata": 2, "sbase": 2, "sdst": 2, "ssrc0": 4, "ssrc1": 5,
    "src0": 257, "src1": 258, "src2": 259, "vsrc1": 2, "saddr": 0x7D,
    "opsel_hi": 3, "opsel_hi2": 1,
}


def first_dword_fixed(fields):
    return [(hi, lo, v) for (_, hi, lo, v) in fields.values() if v is not None and hi < 32]


def shadowed(classes, order, name, bits):
    """Whether `bits` also has the fixed fields of a base class with more fixed bits (the
    decoder tries that class first, so the word is not `name`'s)."""
    mine = sum(hi - lo + 1 for hi, lo, _ in first_dword_fixed(all_fields(classes, name)))
    for other in order:
        if other == name or classes[other]["base"]:
            continue
        fixed = first_dword_fixed(all_fields(classes, other))
        width = sum(hi - lo + 1 for hi, lo, _ in fixed)
        if width > mine and all((bits >> lo) & ((1 << (hi - lo + 1)) - 1) == v for hi, lo, v in fixed):
            return True
    return False


# Operand fields to clear, in turn, for an opcode the ordinary word does not decode as: GFX10's
# decoder rejects a DS word whose unused fields are not zero (ds_write_b32 has no vdst,
# ds_append no addr, ds_nop neither).
CLEARED = [("vdst",), ("addr",), ("vdst", "addr", "data0", "data1")]
# Then the ordinary word followed by a literal dword, for the instructions that always take one
# (v_fmamk_f32, v_fmaak_f32).
LITERAL = ("literal",)


def word(fields, op, cleared=()):
    bits = 0
    top = 32
    for name, (ctor, hi, lo, fixed) in fields.items():
        top = max(top, hi + 1)
        if fixed is not None:
            bits = put(bits, hi, lo, fixed)
        elif name == "op":
            bits = put(bits, hi, lo, op)
        elif name in ORDINARY and name not in cleared:
            bits = put(bits, hi, lo, ORDINARY[name])
    if "soffset" in fields and fields["soffset"][2] == 57:  # SMEM: null soffset
        bits = put(bits, 63, 57, 0x7D)
    return bits, (top + 31) // 32 * 4


# Variants: the src0 code that selects them and the extra dword (for VOP1/VOP2/VOPC).
VARIANTS = [
    ("LIT", 0xFF, 0x3F800000),
    ("DPP16", 0xFA, 0xFF00E401),
    ("DPP8", 0xE9, 0xFAC68801),
    ("SDWA", 0xF9, 0x06060601),
]


def to_bytes(bits, size):
    return " ".join("0x%02x" % ((bits >> (8 * i)) & 0xFF) for i in range(size))


def disassemble(target, blobs, check=None):
    """One llvm-mc run; returns per blob the text when llvm-mc decoded it as one instruction
    whose encoding (as llvm-mc prints it back) has the blob's size and agrees with the blob
    on the bits of `check` (a mask: the opcode and fixed fields)."""
    lines = []
    for k, blob in enumerate(blobs):
        lines.append(blob)
        # Fillers the decoder resynchronises on after a bad word (s_movk_i32 s0, 0xffff),
        # then the candidate's own marker (s_movk_i32 s0, k).
        lines.extend([to_bytes(0xB000FFFF, 4)] * 3)
        lines.append(to_bytes(0xB0000000 | k, 4))
    out = subprocess.run([MC, "-arch=amdgcn", "-mcpu=" + target, "--disassemble",
                          "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True).stdout
    result = [None] * len(blobs)
    pending = []
    for line in out.splitlines():
        enc = re.search(r"encoding: \[([^\]]*)\]", line)
        line = line.split("//")[0].split(";")[0].strip()
        if not line or line.startswith("."):
            continue
        if enc:
            line = (line, [int(x, 0) for x in enc.group(1).split(",")])
        m = re.match(r"s_movk_i32 s0, (0x[0-9a-f]+|\d+)$", line[0] if isinstance(line, tuple) else line)
        if m and int(m.group(1), 0) == 0xFFFF:
            continue
        if m:
            k = int(m.group(1), 0)
            if k < len(blobs) and len(pending) == 1 and isinstance(pending[0], tuple):
                text, enc = pending[0]
                want = [int(x, 0) for x in blobs[k].split()]
                got = sum(b << (8 * i) for i, b in enumerate(enc))
                exp = sum(b << (8 * i) for i, b in enumerate(want))
                mask = check if check is not None else 0
                if len(enc) == len(want) and (got ^ exp) & mask == 0:
                    result[k] = text
            pending = []
        else:
            pending.append(line)
    return result


def gfx11_names(texts):
    """Assembles each text for gfx1100; the mnemonic llvm-mc prints, or None."""
    names = [None] * len(texts)
    proc = subprocess.run([MC, "-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"],
                          input="\n".join(texts) + "\n", capture_output=True, text=True)
    bad = {int(m.group(1)) for m in re.finditer(r"<stdin>:(\d+):\d+: error", proc.stderr)}
    good = [i for i in range(len(texts)) if i + 1 not in bad]
    outs = [l.strip() for l in proc.stdout.splitlines() if "encoding:" in l]
    if len(outs) == len(good):
        for i, o in zip(good, outs):
            names[i] = o.split()[0]
    return names


def stem(m):
    for s in ("_e32", "_e64", "_sdwa", "_dpp"):
        if m.endswith(s):
            return m[: -len(s)]
    return m


# Probe instructions whose encodings fix the layout's bit positions (`--probe TARGET`).
PROBES = """s_load_dword s0, s[4:5], 0x10 glc dlc
s_buffer_load_dword s0, s[4:7], s2
global_load_dword v1, v[2:3], off offset:-8 glc slc dlc
global_load_dword v1, v2, s[4:5] offset:16
flat_load_dword v1, v[2:3] offset:8
scratch_load_dword v1, v2, off offset:4
buffer_load_dword v1, v2, s[4:7], s3 offen offset:12 glc slc dlc
buffer_load_dword v[1:2], v2, s[4:7], s3 idxen offset:12 tfe
ds_write_b32 v1, v2 offset:16
ds_read_b32 v1, v2 offset:16 gds
v_add_co_u32 v1, s5, v2, v3
v_fma_f32 v1, v2, v3, v4 clamp mul:2
v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0
v_add_f32_sdwa v1, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
v_cmp_eq_u32_sdwa s5, v1, v2 src0_sel:WORD_1 src1_sel:DWORD
v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v1, v2 dpp8:[1,0,3,2,4,5,6,7]
v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0]
v_add_f32_e64 v1, v2, 0x12345678
s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)
s_mov_b32 s1, m0
s_mov_b32 s1, null
"""


def main():
    if sys.argv[1] == "--probe":
        sys.stdout.write(subprocess.run([MC, "-arch=amdgcn", "-mcpu=" + sys.argv[2], "-show-encoding"],
                                        input=PROBES, capture_output=True, text=True).stdout)
        return
    layout, target = sys.argv[1], sys.argv[2]
    classes, order = read_layout(layout)
    rows = []
    seen = set()
    for name in order:
        c = classes[name]
        if c["base"] or "op" not in c["fields"]:
            continue
        fields = all_fields(classes, name)
        # VOP3SD shares VOP3's opcode space: sweep it once (as VOP3).
        key = tuple(sorted((n, f[1:]) for n, f in fields.items() if n == "op" or f[3] is not None))
        if key in seen:
            continue
        seen.add(key)
        _, hi, lo, _ = fields["op"]
        ops = range(1 << (hi - lo + 1))
        blobs = []
        for op in ops:
            bits, size = word(fields, op)
            blobs.append(to_bytes(bits, size))
        check = 0
        for fname, (ctor, fhi, flo, fixed) in fields.items():
            if fname == "op" or fixed is not None:
                check = put(check, fhi, flo, -1)
        texts = disassemble(target, blobs, check)
        cleared = {op: () for op in ops}
        for clear in CLEARED + [LITERAL]:
            if clear != LITERAL and not any(c in fields for c in clear):
                continue
            missing = [op for op, t in zip(ops, texts) if t is None]
            blobs = []
            for op in missing:
                bits, size = word(fields, op)
                if clear == LITERAL:
                    bits, size = bits | (0x3F800000 << (8 * size)), size + 4
                else:
                    bits, size = word(fields, op, clear)
                blobs.append(to_bytes(bits, size))
            retry = disassemble(target, blobs, check)
            for op, t in zip(missing, retry):
                if t is not None:
                    texts[op] = t
                    cleared[op] = clear
        variants = {op: [] for op in ops}
        for suffix, code, extra in VARIANTS:
            vname = f"{name}_{suffix}"
            if vname not in classes and not (suffix == "SDWA" and f"{name}_SDWA_SDST" in classes):
                continue
            src0 = fields.get("src0") or fields.get("ssrc0")
            if src0 is None:
                continue
            vblobs = []
            for op in ops:
                bits, size = word(fields, op)
                bits = put(bits, src0[1], src0[2], code)
                if suffix == "SDWA":
                    # VOPC: sdst 0 (vcc); VOP1: no src1_sel.
                    extra = {"VOPC": 0x06060001, "VOP1": 0x00060601}.get(name, extra)
                vblobs.append(to_bytes(bits | (extra << (8 * size)), size + 4))
            for op, t in zip(ops, disassemble(target, vblobs, check)):
                if t is None:
                    continue
                m = t.split()[0]
                ok = {"LIT": not m.endswith(("_dpp", "_sdwa")),
                      "DPP16": m.endswith("_dpp") and "dpp8" not in t,
                      "DPP8": m.endswith("_dpp") and "dpp8" in t,
                      "SDWA": m.endswith("_sdwa")}[suffix]
                if ok:
                    variants[op].append(suffix)
        found = [(op, t) for op, t in zip(ops, texts)
                 if t is not None
                 and not shadowed(classes, order, name,
                                  word(fields, op, () if cleared[op] == LITERAL else cleared[op])[0])]
        names = gfx11_names([t for _, t in found])
        for (op, t), g in zip(found, names):
            m = t.split()[0]
            rows.append((name, op, stem(m), stem(g) if g else "-",
                         ",".join(variants[op]) or "-"))
    print(f"# {target} opcodes by encoding: python3 tools/opcode_sweep.py {layout} {target}")
    print("# encoding\topcode\tllvm\tgfx1100\tvariants")
    for r in rows:
        print("\t".join(str(x) for x in r))


if __name__ == "__main__":
    main()
