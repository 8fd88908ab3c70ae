#!/usr/bin/env python3
"""Writes errata for V_DIV_SCALE_F32/F64 and the V_FMA_MIX family, from the entries in the
pinned spec wheel (run it with the wheel's path; the output is our corrected text).

V_DIV_SCALE_*: AMD's text writes the whole VCC (`VCC = 0x1LL`) from each lane although the
instruction sets one VCC bit per lane (it is a VOP3SD carry-out like V_ADD_CO_U32), and leaves
D0 unwritten when no scaling is needed, where the instruction returns S0 unchanged.

V_FMA_MIX*: AMD's text declares `S : 32'B[3]` and reads S[i] as the three sources without
ever setting them; the sources are S0, S1 and S2.
"""
import ast
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ARCH_DIR = {"rdna3": "rdna3", "rdna4": "rdna4", "cdna": "cdna"}

DIV_REASON = ("AMD's text assigns the whole VCC (`VCC = 0x1LL`) from every lane, although "
              "the instruction writes one VCC bit per lane, and leaves D0 unwritten when no "
              "scaling is needed, where the result is S0; this text writes VCC.u64[laneId] "
              "and starts from D0 = S0.")
MIX_REASON = ("AMD's text reads the sources as S[0..2] of a declared but never assigned array; "
              "this text sets S[i] from S0, S1, S2 first.")


def pcode(wheel, arch):
    with zipfile.ZipFile(wheel) as z:
        src = z.read(f"tinygrad/runtime/autogen/amd/{arch}/str_pcode.py").decode()
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "PCODE":
            return {k.attr: v.value for k, v in zip(node.value.keys, node.value.values)}
    return {}


def main():
    wheel = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "..", "..", "..", "shared", "spec", "tinygrad-0.14.0-py3-none-any.whl")
    for arch in ARCH_DIR:
        entries = pcode(wheel, arch)
        for name, text in entries.items():
            if name.startswith("V_DIV_SCALE_F"):
                t = "f64" if name.endswith("F64") else "f32"
                body = text.replace("VCC = 0x0LL", "VCC.u64[laneId] = 1'0U")
                body = body.replace("VCC = 0x1LL", "VCC.u64[laneId] = 1'1U")
                body = f"D0.{t} = S0.{t};\n" + body
                reason = DIV_REASON
            elif "declare S : 32'B[3];" in text:
                body = text.replace("declare S : 32'B[3];",
                                    "declare S : 32'B[3];\nS[0] = S0.b32;\nS[1] = S1.b32;\nS[2] = S2.b32;")
                reason = MIX_REASON
            else:
                continue
            path = os.path.join(HERE, ARCH_DIR[arch], name + ".pcode")
            with open(path, "w") as f:
                f.write(f"//! reason: {reason}\n{body}\n")
            print(path)


if __name__ == "__main__":
    main()
