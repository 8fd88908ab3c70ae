#!/usr/bin/env python3
"""Writes the errata for V_LDEXP_* and V_RNDNE_* on every arch.

AMD's text computes ldexp as `x * 2.0 ** n`, which overflows the power for large |n|
(giving NaN for 0 * inf and inf instead of a finite result), and rndne as
`floor(x + 0.5)` with a fix-up, which rounds the f32 sum first (0.49999997 becomes 1.0)
and loses the sign of negative results that round to zero. The hardware computes a
correctly rounded ldexp and IEEE roundToIntegralTiesToEven; these texts say that with
the dialect's `ldexp`, `trunc` and `isEven`.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

LDEXP_REASON = ("AMD's text computes x * 2.0 ** n, whose power overflows for large |n| "
                "(0 * inf gives NaN, big * tiny loses range); the instruction is a correctly "
                "rounded ldexp, which this text calls directly.")
RNDNE_REASON = ("AMD's text rounds floor(x + 0.5) in the operand's format first (0.49999997 "
                "becomes 1.0) and turns -0.4 into +0; this text computes IEEE "
                "roundToIntegralTiesToEven exactly: truncate, then step away from zero when the "
                "dropped fraction exceeds one half, or equals it and the truncation is odd.")

LDEXP = {
    "V_LDEXP_F32": "D0.f32 = ldexp(S0.f32, S1.i32)",
    "V_LDEXP_F64": "D0.f64 = ldexp(S0.f64, S1.i32)",
    "V_LDEXP_F16_E32": "D0.f16 = ldexp(S0.f16, 32'I(S1.i16))",
    "V_LDEXP_F16_E64": "D0.f16 = ldexp(S0.f16, 32'I(S1.i16))",
}

def rndne(t):
    one = {"f16": "16'1.0", "f32": "1.0F", "f64": "1.0"}[t]
    half = {"f16": "16'0.5", "f32": "0.5F", "f64": "0.5"}[t]
    wide = "tmp" if t == "f64" else "64'F(tmp)"
    return (f"tmp = trunc(S0.{t});\n"
            f"frac = S0.{t} - tmp;\n"
            f"if (abs(frac) > {half}) || ((abs(frac) == {half}) && !isEven({wide})) then\n"
            f"tmp += sign(S0.{t}) ? -{one} : {one}\n"
            f"endif;\n"
            f"D0.{t} = tmp")

def main():
    for arch in ("rdna3", "rdna4", "cdna"):
        folder = os.path.join(HERE, arch)
        os.makedirs(folder, exist_ok=True)
        for name, text in LDEXP.items():
            with open(os.path.join(folder, name + ".pcode"), "w") as f:
                f.write(f"//! reason: {LDEXP_REASON}\n{text}\n")
        for t in ("f16", "f32", "f64"):
            for enc in ("E32", "E64"):
                name = f"V_RNDNE_{t.upper()}_{enc}"
                with open(os.path.join(folder, name + ".pcode"), "w") as f:
                    f.write(f"//! reason: {RNDNE_REASON}\n{rndne(t)}\n")

if __name__ == "__main__":
    main()
