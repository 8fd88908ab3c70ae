#!/usr/bin/env python3
"""Per-target instruction tables, derived reproducibly from LLVM's disassembler.

For a target whose database amdpcode derives from a wheel folder (CDNA 1-3 from `cdna`,
i.e. gfx950), this sweeps every opcode of every encoding the folder's database uses,
disassembles the same words with llvm-mc for the folder's own processor and for the
target, and writes which of the folder's instructions exist on the target and at which
opcode, plus the target's instructions the folder lacks.

    python3 tools/isa_tables.py --amdpcode target/release/amdpcode gfx908 gfx90a gfx942

writes semantics/targets/<target>.tsv. Columns (tab separated, `#` lines are comments):

    encoding  name  base_opcode  target_opcode  llvm_mnemonic

`base_opcode` is `-` for an instruction only the target has; `target_opcode` is `-` for
an instruction the target lacks. An opcode whose words decode on neither processor with
zero operand fields is kept as it is in the base (`unverified` in the last column).

Extend ENCODINGS (and BASE) for other families; the RDNA and GFX12.5 layouts differ.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys

LLVM_MC = os.environ.get("LLVM_MC", "llvm-mc-22")

# GFX9 layouts: encoding -> (words, fixed bits of the first dword, opcode lsb, opcode width,
# extra fixed bits of the first dword). Everything else is zero. Opcodes whose bits would
# form another encoding's prefix are left out (LIMIT).
GFX9 = {
    "SOP2": (1, 0b10 << 30, 23, 7, 0),
    "SOPK": (1, 0b1011 << 28, 23, 5, 0),
    "SOP1": (1, 0x17D << 23, 8, 8, 0),
    "SOPC": (1, 0x17E << 23, 16, 7, 0),
    "SOPP": (1, 0x17F << 23, 16, 7, 0),
    "SMEM": (2, 0b110000 << 26, 18, 8, 0),
    "VOP2": (1, 0, 25, 6, 0),
    "VOP1": (1, 0x3F << 25, 9, 8, 0),
    "VOPC": (1, 0x3E << 25, 17, 8, 0),
    "VOP3": (2, 0b110100 << 26, 16, 10, 0),
    "VOP3SD": (2, 0b110100 << 26, 16, 10, 0),
    "VOP3P": (2, 0x1A7 << 23, 16, 7, 0),
    "DS": (2, 0b110110 << 26, 17, 8, 0),
    "FLAT": (2, 0b110111 << 26, 18, 7, 0 << 14),
    "SCRATCH": (2, 0b110111 << 26, 18, 7, 1 << 14),
    "GLOBAL": (2, 0b110111 << 26, 18, 7, 2 << 14),
    "MUBUF": (2, 0b111000 << 26, 18, 7, 0),
    "MTBUF": (2, 0b111010 << 26, 15, 4, 0),
}

# Opcodes at or above these belong to other encodings (their prefixes overlap).
LIMIT = {"SOP2": 0x60, "SOPK": 0x1D, "VOP2": 0x3E, "VOP3": 0x380, "VOP3SD": 0x380}


# GFX12 layouts (the wheel's `rdna4` folder, gfx1200), which GFX12.5 (gfx1250) extends.
GFX12 = {
    "SOP2": (1, 0b10 << 30, 23, 7, 0),
    "SOPK": (1, 0b1011 << 28, 23, 5, 0),
    "SOP1": (1, 0x17D << 23, 8, 8, 0),
    "SOPC": (1, 0x17E << 23, 16, 7, 0),
    "SOPP": (1, 0x17F << 23, 16, 7, 0),
    "SMEM": (2, 0b111101 << 26, 13, 6, 0),
    "VOP2": (1, 0, 25, 6, 0),
    "VOP1": (1, 0x3F << 25, 9, 8, 0),
    "VOPC": (1, 0x3E << 25, 17, 8, 0),
    "VOP3": (2, 0b110101 << 26, 16, 10, 0),
    "VOP3SD": (2, 0b110101 << 26, 16, 10, 0),
    "VOP3P": (2, 0xCC << 24, 16, 7, 0),
    "DS": (2, 0b110110 << 26, 18, 8, 0),
    "VFLAT": (2, 0b111011 << 26, 14, 8, 0 << 24),
    "VSCRATCH": (2, 0b111011 << 26, 14, 8, 1 << 24),
    "VGLOBAL": (2, 0b111011 << 26, 14, 8, 2 << 24),
    "VBUFFER": (2, 0b110001 << 26, 14, 8, 0),
    "VIMAGE": (2, 0b110100 << 26, 14, 8, 0),
    "VSAMPLE": (2, 0b111001 << 26, 14, 8, 0),
    "VINTERP": (2, 0xCD << 24, 16, 7, 0),
    # The Y half of a dual issue (X fixed to opcode 0); its mnemonic follows `::`.
    "VOPD": (2, 0b110010 << 26, 17, 5, 0),
}

# The s_trap 42 that ends each swept line, per layout family.
MARKERS = {id(GFX9): 0xBF92002A, id(GFX12): 0xBF90002A}
# GFX12's VOP3 prefix leaves the whole 10-bit opcode space to VOP3.
LIMITS = {id(GFX9): LIMIT, id(GFX12): {"SOP2": 0x60, "SOPK": 0x1D, "VOP2": 0x3E}}

# The wheel folder each target derives from: (folder arch name, its processor, layouts).
BASE = {
    "gfx908": ("cdna", "gfx950", GFX9),
    "gfx90a": ("cdna", "gfx950", GFX9),
    "gfx942": ("cdna", "gfx950", GFX9),
    "gfx1250": ("rdna4", "gfx1200", GFX12),
}


# Instructions a target names differently from the base: (base mnemonic, target mnemonic,
# operands). Each is checked when the table is generated: llvm-mc must assemble both names
# with these operands to the same bytes for the target, or (a target whose assembler knows
# only its own name) assemble the target's name for the target and both names alike for the
# base processor, which keeps the target's name as an alias of its own instruction.
#
# CDNA 1 and 2: gfx940 renamed the matrix instructions (`v_mfma_f32_16x16x16f16` became
# `v_mfma_f32_16x16x16_f16`, the block count entering the name: `v_mfma_f32_32x32x1f32`
# became `v_mfma_f32_32x32x1_2b_f32`), and moved the `_1k` bf16 forms of gfx90a to lower
# opcodes. llvm-mc-22 for gfx950 still takes every old name below, to the same bytes as the
# new one. gfx940 dropped `v_mfma_i32_32x32x8i8`, `v_mfma_i32_16x16x16i8` and the
# non-`_1k` bf16 forms (its i8 shapes are 32x32x16 and 16x16x32): those have no rename.
_MFMA_RENAMES = [
    ("v_mfma_f32_32x32x1_2b_f32", "v_mfma_f32_32x32x1f32", "a[0:31], v0, v1, a[0:31]"),
    ("v_mfma_f32_16x16x1_4b_f32", "v_mfma_f32_16x16x1f32", "a[0:15], v0, v1, a[0:15]"),
    ("v_mfma_f32_4x4x1_16b_f32", "v_mfma_f32_4x4x1f32", "a[0:3], v0, v1, a[0:3]"),
    ("v_mfma_f32_32x32x2_f32", "v_mfma_f32_32x32x2f32", "a[0:15], v0, v1, a[0:15]"),
    ("v_mfma_f32_16x16x4_f32", "v_mfma_f32_16x16x4f32", "a[0:3], v0, v1, a[0:3]"),
    ("v_mfma_f32_32x32x4_2b_f16", "v_mfma_f32_32x32x4f16", "a[0:31], v[0:1], v[2:3], a[0:31]"),
    ("v_mfma_f32_16x16x4_4b_f16", "v_mfma_f32_16x16x4f16", "a[0:15], v[0:1], v[2:3], a[0:15]"),
    ("v_mfma_f32_4x4x4_16b_f16", "v_mfma_f32_4x4x4f16", "a[0:3], v[0:1], v[2:3], a[0:3]"),
    ("v_mfma_f32_32x32x8_f16", "v_mfma_f32_32x32x8f16", "a[0:15], v[0:1], v[2:3], a[0:15]"),
    ("v_mfma_f32_16x16x16_f16", "v_mfma_f32_16x16x16f16", "a[0:3], v[0:1], v[2:3], a[0:3]"),
    ("v_mfma_i32_32x32x4_2b_i8", "v_mfma_i32_32x32x4i8", "a[0:31], v0, v1, a[0:31]"),
    ("v_mfma_i32_16x16x4_4b_i8", "v_mfma_i32_16x16x4i8", "a[0:15], v0, v1, a[0:15]"),
    ("v_mfma_i32_4x4x4_16b_i8", "v_mfma_i32_4x4x4i8", "a[0:3], v0, v1, a[0:3]"),
]
_MFMA_RENAMES_90A = [
    ("v_mfma_f32_32x32x4_2b_bf16", "v_mfma_f32_32x32x4bf16_1k", "a[0:31], v[0:1], v[2:3], a[0:31]"),
    ("v_mfma_f32_16x16x4_4b_bf16", "v_mfma_f32_16x16x4bf16_1k", "a[0:15], v[0:1], v[2:3], a[0:15]"),
    ("v_mfma_f32_4x4x4_16b_bf16", "v_mfma_f32_4x4x4bf16_1k", "a[0:3], v[0:1], v[2:3], a[0:3]"),
    ("v_mfma_f32_32x32x8_bf16", "v_mfma_f32_32x32x8bf16_1k", "a[0:15], v[0:1], v[2:3], a[0:15]"),
    ("v_mfma_f32_16x16x16_bf16", "v_mfma_f32_16x16x16bf16_1k", "a[0:3], v[0:1], v[2:3], a[0:3]"),
    ("v_mfma_f64_16x16x4_f64", "v_mfma_f64_16x16x4f64", "a[0:7], v[0:1], v[2:3], a[0:7]"),
    ("v_mfma_f64_4x4x4_4b_f64", "v_mfma_f64_4x4x4f64", "a[0:1], v[0:1], v[2:3], a[0:1]"),
]
RENAMED = {
    "gfx908": _MFMA_RENAMES,
    "gfx90a": _MFMA_RENAMES + _MFMA_RENAMES_90A,
    "gfx1250": [
        ("s_getpc_b64", "s_get_pc_i64", "s[0:1]"),
        ("s_setpc_b64", "s_set_pc_i64", "s[0:1]"),
        ("s_swappc_b64", "s_swap_pc_i64", "s[0:1], s[2:3]"),
        ("s_rfe_b64", "s_rfe_i64", "s[0:1]"),
        ("s_call_b64", "s_call_i64", "s[0:1], 4"),
    ],
}


# Operand donors the probes cannot find: (target mnemonic, base instruction, operands). The
# probes compare only with instructions the target keeps, and print `v_madmk_f16` (16-bit
# operands) like `v_madmk_f32`; gfx950's `v_fmamk_f32`/`v_fmaak_f32` have the 32-bit
# operands and literal of LLVM's `v_madmk_f32`/`v_madak_f32`. Each is checked when the table
# is generated: the target's instruction for the target and the donor for the base processor
# must assemble with these operands to the same bytes.
_MADK_DONORS = [
    ("v_madmk_f32", "V_FMAMK_F32_E32", "v1, v2, 0x3f800000, v3"),
    ("v_madak_f32", "V_FMAAK_F32_E32", "v1, v2, v3, 0x3f800000"),
]
DONORS = {"gfx908": _MADK_DONORS, "gfx90a": _MADK_DONORS}

# Operand donors from another wheel folder, for a target's own instructions that the base
# folder has no look-alike of: (target mnemonic, `folder:INSTRUCTION`, that folder's
# processor, operands). gfx1250 has CDNA 4's 64-bit packed f32 operations and its 16-bit
# `v_bitop3_b16` (the probes matched it to `v_cndmask_b16`, whose third source is a lane
# mask). The cell `cdna:NAME` makes the database take both the operands and the text of
# CDNA 4's instruction of that name (`src/spec/derive.rs`). Each is checked when the table
# is generated: the target and the folder's processor must both assemble the line and print
# the same operands back.
FOLDER_DONORS = {
    "gfx1250": [
        ("v_bitop3_b16", "cdna:V_BITOP3_B16", "gfx950", "v1, s2, v3, v4 bitop3:0xe4 op_sel:[1,0,1,1]"),
        ("v_pk_fma_f32", "cdna:V_PK_FMA_F32", "gfx950", "v[2:3], v[4:5], v[6:7], v[8:9] op_sel:[1,0,1] op_sel_hi:[0,1,0] neg_lo:[1,0,0]"),
        ("v_pk_mul_f32", "cdna:V_PK_MUL_F32", "gfx950", "v[2:3], v[4:5], v[6:7] op_sel:[1,0] op_sel_hi:[0,1] neg_hi:[0,1]"),
        ("v_pk_add_f32", "cdna:V_PK_ADD_F32", "gfx950", "v[2:3], v[4:5], v[6:7] op_sel:[0,1] op_sel_hi:[1,0] neg_lo:[0,1]"),
    ],
}


# Operand donors of another encoding of the base: (target mnemonic, `ENCODING:NAME`, the
# target's operands, the donor's operands). gfx1250's VOP3 `v_mad_nc_u64_u32` and
# `v_mad_nc_i64_i32` are RDNA 4's VOP3SD `v_mad_co_*` without the carry-out `sdst`; the
# database drops the operands whose field the target's encoding lacks. Checked: the two
# lines assemble to the same destination byte and the same source dword.
ENCODING_DONORS = {
    "gfx1250": [
        ("v_mad_nc_u64_u32", "VOP3SD:V_MAD_CO_U64_U32", "v[2:3], v4, s5, v[6:7]", "v[2:3], null, v4, s5, v[6:7]"),
        ("v_mad_nc_i64_i32", "VOP3SD:V_MAD_CO_I64_I32", "v[2:3], v4, s5, v[6:7]", "v[2:3], null, v4, s5, v[6:7]"),
    ],
}


def encoding_donors(target):
    """The target's verified donors of another encoding, mnemonic -> `ENCODING:NAME`."""
    base_cpu = BASE[target][1]
    out = {}
    for mnemonic, donor, ours, theirs in ENCODING_DONORS.get(target, []):
        stem = donor.split(":")[1].lower()
        a, b = encode(target, f"{mnemonic} {ours}"), encode(base_cpu, f"{stem} {theirs}")
        fields = lambda e: e and (e.strip("[]").split(",")[0], e.strip("[]").split(",")[4:8])
        if a is None or b is None or fields(a) != fields(b):
            sys.exit(f"{target}: `{mnemonic}` and {base_cpu} `{stem}` do not encode their operands alike ({a} / {b})")
        out[mnemonic] = donor
    return out


def folder_donors(target):
    """The target's verified donors from another wheel folder, mnemonic -> `folder:NAME`."""
    out = {}
    for mnemonic, donor, cpu, operands in FOLDER_DONORS.get(target, []):
        line = f"{mnemonic} {operands}"
        a, b = disassembled(target, line), disassembled(cpu, line)
        if a is None or a != b:
            sys.exit(f"{target}: `{line}` does not print alike on {target} and {cpu} ({a} / {b})")
        out[mnemonic] = donor
    return out


def disassembled(mcpu, line):
    """`line` assembled for `mcpu` and printed back by llvm-mc, or None if refused."""
    enc = encode(mcpu, line)
    if enc is None:
        return None
    data = " ".join(enc.strip("[]").split(","))
    p = subprocess.run(
        [LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-disassemble"],
        input=data + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [l.strip() for l in p.stdout.splitlines() if l.strip() and not l.strip().startswith(".")]
    return lines[-1].split(";")[0].strip() if lines else None


def donor_overrides(target):
    """The target's verified operand donors, target mnemonic -> base instruction."""
    base_cpu = BASE[target][1]
    out = {}
    for mnemonic, donor, operands in DONORS.get(target, []):
        stem = donor.lower().removesuffix("_e32").removesuffix("_e64")
        a = encode(target, f"{mnemonic} {operands}")
        b = encode(base_cpu, f"{stem} {operands}")
        if a is None or a != b:
            sys.exit(f"{target}: `{mnemonic}` and {base_cpu} `{stem}` do not assemble alike ({a} / {b})")
        out[mnemonic] = donor
    return out


def encode(mcpu, line):
    p = subprocess.run(
        [LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-show-encoding"],
        input=line + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    m = re.search(r"encoding: (\[[^]]*\])", p.stdout)
    return m.group(1) if m else None


def renamed(target):
    """The target's verified renames, base mnemonic -> target mnemonic."""
    base_cpu = BASE[target][1]
    out = {}
    for old, new, operands in RENAMED.get(target, []):
        a, b = encode(target, f"{old} {operands}"), encode(target, f"{new} {operands}")
        if a is None and b is not None:
            # The target's assembler knows only its own name: the base must take both.
            a, b = encode(base_cpu, f"{old} {operands}"), encode(base_cpu, f"{new} {operands}")
        if a is None or a != b:
            sys.exit(f"{target}: `{old}` and `{new}` do not assemble alike ({a} / {b})")
        out[old] = new
    return out


def words(layout, op):
    n, fixed, lsb, _width, extra = layout
    first = fixed | extra | (op << lsb)
    out = first.to_bytes(4, "little")
    if n == 2:
        hi = 0
        # FLAT-family stores/loads with saddr 0 are fine; keep vaddr/vdst zero.
        out += hi.to_bytes(4, "little")
    return out


# Each swept word is followed by a zero dword (v_cndmask_b32 on GFX9, or the literal of an
# instruction that takes one) and a marker instruction that ends the line's output.
PAD = bytes(4)
# GFX12.5 has 64-bit literals: two zero dwords, so that one never swallows the marker.
PADS = {id(GFX9): PAD, id(GFX12): bytes(8)}
MARKER = (0xBF92002A).to_bytes(4, "little")  # s_trap 42
MARKER_TEXT = "s_trap 42"


def disassemble(mcpu, blobs, marker=MARKER, pad=PAD):
    """Text (or None when rejected) of each byte string, decoded by llvm-mc for `mcpu` as
    its first instruction."""
    text = "".join(
        " ".join(f"0x{b:02x}" for b in blob + pad + marker) + "\n" for blob in blobs
    )
    p = subprocess.run(
        [LLVM_MC, "-disassemble", "-triple=amdgcn-amd-amdhsa", f"-mcpu={mcpu}"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    bad = set()
    for line in p.stderr.splitlines():
        m = re.match(r"<stdin>:(\d+):\d+: warning: invalid instruction encoding", line)
        if m:
            bad.add(int(m.group(1)) - 1)
    segments, current = [], []
    for line in p.stdout.splitlines():
        line = line.strip()
        if not line or line.startswith("."):
            continue
        if line.startswith(MARKER_TEXT):
            segments.append(current)
            current = []
        else:
            current.append(line.split("//")[0].split(";")[0].strip())
    if len(segments) != len(blobs):
        sys.exit(f"{mcpu}: {len(segments)} markers for {len(blobs)} lines")
    return [None if i in bad or not seg else seg[0] for i, seg in enumerate(segments)]


def mnemonic(text):
    """The swept instruction's mnemonic in a disassembled line (a dual-issue line names the
    swept Y half after `::`)."""
    return None if text is None else text.split("::")[-1].split()[0]


def operand_text(text):
    """What follows the swept instruction's mnemonic."""
    if text is None:
        return None
    half = text.split("::")[-1].strip()
    return half[len(half.split()[0]) :].strip()


def base_instructions(amdpcode, folder):
    p = subprocess.run(
        [amdpcode, "spec", "list", "--arch", folder, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(p.stdout)


def table(amdpcode, target):
    folder, base_cpu, layouts = BASE[target]
    insts = base_instructions(amdpcode, folder)
    renames = renamed(target)
    overrides = donor_overrides(target) | folder_donors(target) | encoding_donors(target)
    rows = []
    for enc, layout in layouts.items():
        ours = [i for i in insts if i["encoding"] == enc]
        if not ours:
            continue
        ops = list(range(LIMITS[id(layouts)].get(enc, 1 << layout[3])))
        blobs = [words(layout, op) for op in ops]
        marker = MARKERS[id(layouts)].to_bytes(4, "little")
        pad = PADS[id(layouts)]
        on_base = [mnemonic(t) for t in disassemble(base_cpu, blobs, marker, pad)]
        on_target = [mnemonic(t) for t in disassemble(target, blobs, marker, pad)]
        where = {}
        for op, m in zip(ops, on_target):
            if m is not None:
                where.setdefault(m, op)
        base_mnemonics = {m for m in on_base if m is not None}
        for i in sorted(ours, key=lambda i: (i["opcode"], i["inst"])):
            op = i["opcode"]
            mb = on_base[op] if op < len(on_base) else None
            if mb is None:
                # The base itself rejects zero operand fields here: keep the base opcode
                # on targets that reject it too, else say what the target has there.
                mt = on_target[op] if op < len(on_target) else None
                if mt is None:
                    rows.append((enc, i["inst"], op, op, "unverified"))
                elif mt.upper() == i["inst"]:
                    rows.append((enc, i["inst"], op, op, mt))
                else:
                    rows.append((enc, i["inst"], op, op, mt + " unverified"))
                continue
            if op < len(on_target) and on_target[op] == mb:
                rows.append((enc, i["inst"], op, op, mb))
            elif op < len(on_target) and on_target[op] and on_target[op] == renames.get(mb):
                rows.append((enc, i["inst"], op, op, on_target[op] + " renamed"))
            elif mb in where:
                rows.append((enc, i["inst"], op, where[mb], mb))
            elif renames.get(mb) in where:
                rows.append((enc, i["inst"], op, where[renames[mb]], renames[mb] + " renamed"))
            else:
                rows.append((enc, i["inst"], op, "-", mb))
        # VOP3 also holds the promoted VOP1/VOP2/VOPC forms; those are reported there.
        if enc == "VOP3SD":
            continue  # same opcode space as VOP3: its extras are listed there
        names = {i["inst"] for i in ours}
        extras = []
        for op, m in zip(ops, on_target):
            if m is None or m in base_mnemonics or m.upper() in names:
                continue
            if m in renames.values():
                continue  # a base instruction under its new name, listed above
            extras.append((op, m))
        if not extras:
            continue
        kept = {r[3]: r[1] for r in rows if r[0] == enc and r[3] != "-"}
        donors = operand_donors(target, enc, layout, layouts, kept, extras)
        for op, m in extras:
            if m in overrides:
                donors[op] = overrides[m]
            rows.append((enc, m.upper(), "-", op, m, donors.get(op, "-")))
    return rows


# Bits of each layout's first dword from which on the encoding (and segment) bits lie: an
# operand probe randomises the bits below (except the opcode) and every later dword.
FIXED_FROM = {
    "SOP2": 30, "SOPK": 28, "SOP1": 23, "SOPC": 23, "SOPP": 23, "SMEM": 26, "VOP2": 31,
    "VOP1": 25, "VOPC": 25, "VOP3": 26, "VOP3SD": 26, "VOP3P": 23, "DS": 26, "VFLAT": 24,
    "VSCRATCH": 24, "VGLOBAL": 24, "VBUFFER": 26, "VIMAGE": 26, "VSAMPLE": 26, "VINTERP": 23,
    "VOPD": 17, "MUBUF": 26, "MTBUF": 26,
}
PROBES = 16


def probes(enc, layout, op):
    """The zero-operand word of `op` and PROBES words with random operand fields (the same
    fields for every opcode of the encoding)."""
    n, _fixed, lsb, width, _extra = layout
    rng = random.Random(enc)
    op_mask = ((1 << width) - 1) << lsb
    free = ((1 << FIXED_FROM[enc]) - 1) & ~op_mask
    out = [words(layout, op)]
    zero = int.from_bytes(out[0][:4], "little")
    for _ in range(PROBES):
        first = zero | (rng.getrandbits(32) & free)
        rest = bytes(rng.getrandbits(8) for _ in range(4 * (n - 1)))
        out.append(first.to_bytes(4, "little") + rest)
    return out


def operand_donors(target, enc, layout, layouts, kept, extras):
    """For each target-only opcode, a base instruction of the same encoding whose operands
    llvm-mc prints alike on the target for the most probe words (the zero word at least):
    the one whose operand fields (registers, widths, value formats) the target instruction
    takes. Ties go to the longer common name suffix (`_f64`, `_b128`), then the lower
    opcode. A donor alike on fewer than all probes is written `NAME~alike/probes`."""
    marker = MARKERS[id(layouts)].to_bytes(4, "little")
    pad = PADS[id(layouts)]
    order = sorted(kept) + [op for op, _ in extras]
    blobs = [b for op in order for b in probes(enc, layout, op)]
    texts = disassemble(target, blobs, marker, pad)
    k = PROBES + 1
    shape = {op: [operand_text(t) for t in texts[i * k : (i + 1) * k]] for i, op in enumerate(order)}
    donors = {}
    for op, m in extras:
        want = shape[op]
        if want[0] is None:
            continue
        best = None
        for cand in sorted(kept):
            have = shape[cand]
            if have[0] != want[0]:
                continue  # registers of other widths
            alike = sum(1 for w, h in zip(want, have) if w == h)
            suffix = common_suffix(m.split("_"), kept[cand].lower().split("_"))
            key = (alike, suffix, -cand)
            if best is None or key > best[0]:
                best = (key, kept[cand])
        if best is not None:
            alike = best[0][0]
            donors[op] = best[1] if alike == k else f"{best[1]}~{alike}/{k}"
    return donors


def common_suffix(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--amdpcode", default="target/release/amdpcode")
    ap.add_argument("--out", default="semantics/targets")
    ap.add_argument("targets", nargs="+", choices=sorted(BASE))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    version = subprocess.run([LLVM_MC, "--version"], capture_output=True, text=True).stdout
    version = next((l.strip() for l in version.splitlines() if "version" in l), "?")
    for target in args.targets:
        rows = table(args.amdpcode, target)
        path = os.path.join(args.out, f"{target}.tsv")
        folder, base_cpu, _ = BASE[target]
        with open(path, "w") as f:
            f.write(f"# {target}: instructions of the wheel's `{folder}` database ({base_cpu}),\n")
            f.write(f"# checked against {LLVM_MC} -disassemble ({version}).\n")
            f.write("# Regenerate: python3 tools/isa_tables.py " + " ".join(args.targets) + "\n")
            f.write("# encoding\tname\tbase_opcode\ttarget_opcode\tllvm_mnemonic\toperands_of\n")
            for r in rows:
                f.write("\t".join(str(c) for c in r) + "\n")
        missing = sum(1 for r in rows if r[3] == "-")
        extra = sum(1 for r in rows if r[2] == "-")
        moved = sum(1 for r in rows if r[2] != "-" and r[3] != "-" and r[2] != r[3])
        print(f"{path}: {len(rows)} rows, {missing} missing, {moved} moved, {extra} extra")


if __name__ == "__main__":
    main()
