//! The architectures amdpcode knows, each described by a [`Profile`]: a constant table of
//! what the rest of the crate asks about a generation (its family, the wheel folder its
//! pseudocode and encoding layouts come from, wave sizes, register files, features).
//!
//! Code that behaves differently per generation asks the profile (`arch.profile()`), the
//! family (`arch.family()`) or the wheel layout (`arch.wheel()`) rather than matching on
//! [`Arch`] variants, so a new arch of a known family takes its family's paths.

use std::fmt;

/// The instruction-set architectures amdpcode knows. Three of them (RDNA 3, RDNA 4 and
/// CDNA 4) have pseudocode in the spec wheel; the others derive their database from one of
/// those ([`Profile::wheel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// RDNA 1 (gfx1010).
    Rdna1,
    /// RDNA 2 (gfx1030).
    Rdna2,
    /// RDNA 3 (gfx11).
    Rdna3,
    /// RDNA 4 (gfx12).
    Rdna4,
    /// CDNA 1 (gfx908).
    Cdna1,
    /// CDNA 2 (gfx90a).
    Cdna2,
    /// CDNA 3 (gfx942).
    Cdna3,
    /// CDNA 4 (gfx950). Named `cdna` (or `cdna4`) on the command line.
    Cdna,
    /// CDNA 5 (gfx1250).
    Cdna5,
}

/// The three folders of the spec wheel, one per arch whose pseudocode AMD published there.
/// Every [`Arch`] reads its text and encoding layouts from one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wheel {
    /// `rdna3/`: RDNA 3 (gfx11) layouts; also the base of RDNA 1 and 2.
    Rdna3,
    /// `rdna4/`: RDNA 4 (gfx12) layouts; also the base of CDNA 5.
    Rdna4,
    /// `cdna/`: CDNA 4 (gfx950) layouts; also the base of CDNA 1, 2 and 3.
    Cdna,
}

impl Wheel {
    /// The arch whose database is this folder as the wheel has it.
    pub fn arch(self) -> Arch {
        match self {
            Wheel::Rdna3 => Arch::Rdna3,
            Wheel::Rdna4 => Arch::Rdna4,
            Wheel::Cdna => Arch::Cdna,
        }
    }

    /// The folder's name inside the wheel (`tinygrad/runtime/autogen/amd/<name>/`).
    pub fn folder(self) -> &'static str {
        self.arch().name()
    }
}

/// A hardware generation as LLVM groups targets (`GFX9`, `GFX10`, ...): arches of one
/// family share encodings, operand codes, waitcnt layouts and hazard rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// GFX9: CDNA 1-4 (gfx908, gfx90a, gfx942, gfx950).
    Gfx9,
    /// GFX10: RDNA 1 and 2 (gfx1010, gfx1030).
    Gfx10,
    /// GFX11: RDNA 3.
    Gfx11,
    /// GFX12: RDNA 4.
    Gfx12,
    /// GFX12.5: CDNA 5 (gfx1250).
    Gfx125,
}

/// How an arch's 8-bit float formats (FP8 E4M3 and BF8 E5M2) are defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp8 {
    /// The arch has no 8-bit float instructions.
    None,
    /// The "FNUZ" formats (finite, no negative zero: 0x80 is the only NaN, exponent biases
    /// 8 and 16), as on CDNA 3.
    Fnuz,
    /// The OCP formats (E4M3FN with bias 7, E5M2 with bias 15, IEEE-like NaN/Inf rules).
    Ocp,
}

/// What the rest of the crate may ask about an arch.
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    /// The arch.
    pub arch: Arch,
    /// The name used on the command line, in reports and in `semantics/errata/<name>/`.
    pub name: &'static str,
    /// Its marketing name, e.g. "CDNA 3".
    pub title: &'static str,
    /// Further names accepted on the command line (besides the targets).
    pub aliases: &'static [&'static str],
    /// The LLVM processors (`-mcpu=`) of the arch; the first is the one the tests target.
    pub targets: &'static [&'static str],
    /// The generation.
    pub family: Family,
    /// The wheel folder whose pseudocode and encoding layouts the arch derives from.
    pub wheel: Wheel,
    /// The wave sizes the hardware runs.
    pub wave_sizes: &'static [u32],
    /// The wave size used when none is asked for.
    pub default_wave: u32,
    /// The number of accumulation registers (AGPRs) per lane (0: none).
    pub agprs: u32,
    /// Whether VGPRs and AGPRs share one register file split by the kernel's
    /// `ACCUM_OFFSET` (gfx90a and later) rather than being two files.
    pub unified_agprs: bool,
    /// The number of numbered SGPRs (`s0..s{n-1}`).
    pub sgprs: u32,
    /// Whether packed 32-bit float ops (`V_PK_FMA_F32`, ...) exist.
    pub packed_f32: bool,
    /// The 8-bit float formats of its conversions and matrix ops.
    pub fp8: Fp8,
    /// Whether VOP1/VOP2/VOPC take the SDWA extension (GFX9, GFX10).
    pub sdwa: bool,
    /// Whether the 8-lane DPP form (`DPP8`) exists (GFX10 and later).
    pub dpp8: bool,
    /// Whether matrix multiply-accumulate ops use AGPRs (MFMA, CDNA 1-4).
    pub mfma: bool,
    /// Whether wave matrix ops (WMMA) exist.
    pub wmma: bool,
}

const WAVE64: &[u32] = &[64];
const WAVE32: &[u32] = &[32];
const WAVE32_64: &[u32] = &[32, 64];

/// Every arch's profile, in [`Arch::ALL`] order.
const PROFILES: [Profile; 9] = [
    Profile {
        arch: Arch::Rdna1,
        name: "rdna1",
        title: "RDNA 1",
        aliases: &[],
        targets: &["gfx1010", "gfx1011", "gfx1012", "gfx1013"],
        family: Family::Gfx10,
        wheel: Wheel::Rdna3,
        wave_sizes: WAVE32_64,
        default_wave: 32,
        agprs: 0,
        unified_agprs: false,
        sgprs: 106,
        packed_f32: false,
        fp8: Fp8::None,
        sdwa: true,
        dpp8: true,
        mfma: false,
        wmma: false,
    },
    Profile {
        arch: Arch::Rdna2,
        name: "rdna2",
        title: "RDNA 2",
        aliases: &[],
        targets: &[
            "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
        ],
        family: Family::Gfx10,
        wheel: Wheel::Rdna3,
        wave_sizes: WAVE32_64,
        default_wave: 32,
        agprs: 0,
        unified_agprs: false,
        sgprs: 106,
        packed_f32: false,
        fp8: Fp8::None,
        sdwa: true,
        dpp8: true,
        mfma: false,
        wmma: false,
    },
    Profile {
        arch: Arch::Rdna3,
        name: "rdna3",
        title: "RDNA 3",
        aliases: &["gfx11"],
        targets: &[
            "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
        ],
        family: Family::Gfx11,
        wheel: Wheel::Rdna3,
        wave_sizes: WAVE32_64,
        default_wave: 32,
        agprs: 0,
        unified_agprs: false,
        sgprs: 106,
        packed_f32: false,
        fp8: Fp8::None,
        sdwa: false,
        dpp8: true,
        mfma: false,
        wmma: true,
    },
    Profile {
        arch: Arch::Rdna4,
        name: "rdna4",
        title: "RDNA 4",
        aliases: &["gfx12"],
        targets: &["gfx1200", "gfx1201"],
        family: Family::Gfx12,
        wheel: Wheel::Rdna4,
        wave_sizes: WAVE32_64,
        default_wave: 32,
        agprs: 0,
        unified_agprs: false,
        sgprs: 106,
        packed_f32: false,
        fp8: Fp8::Ocp,
        sdwa: false,
        dpp8: true,
        mfma: false,
        wmma: true,
    },
    Profile {
        arch: Arch::Cdna1,
        name: "cdna1",
        title: "CDNA 1",
        aliases: &[],
        targets: &["gfx908"],
        family: Family::Gfx9,
        wheel: Wheel::Cdna,
        wave_sizes: WAVE64,
        default_wave: 64,
        agprs: 256,
        unified_agprs: false,
        sgprs: 102,
        packed_f32: false,
        fp8: Fp8::None,
        sdwa: true,
        dpp8: false,
        mfma: true,
        wmma: false,
    },
    Profile {
        arch: Arch::Cdna2,
        name: "cdna2",
        title: "CDNA 2",
        aliases: &[],
        targets: &["gfx90a"],
        family: Family::Gfx9,
        wheel: Wheel::Cdna,
        wave_sizes: WAVE64,
        default_wave: 64,
        agprs: 256,
        unified_agprs: true,
        sgprs: 102,
        packed_f32: true,
        fp8: Fp8::None,
        sdwa: true,
        dpp8: false,
        mfma: true,
        wmma: false,
    },
    Profile {
        arch: Arch::Cdna3,
        name: "cdna3",
        title: "CDNA 3",
        aliases: &[],
        targets: &["gfx942", "gfx9-4-generic"],
        family: Family::Gfx9,
        wheel: Wheel::Cdna,
        wave_sizes: WAVE64,
        default_wave: 64,
        agprs: 256,
        unified_agprs: true,
        sgprs: 102,
        packed_f32: true,
        fp8: Fp8::Fnuz,
        sdwa: true,
        dpp8: false,
        mfma: true,
        wmma: false,
    },
    Profile {
        arch: Arch::Cdna,
        name: "cdna",
        title: "CDNA 4",
        aliases: &["cdna4", "gfx9"],
        targets: &["gfx950"],
        family: Family::Gfx9,
        wheel: Wheel::Cdna,
        wave_sizes: WAVE64,
        default_wave: 64,
        agprs: 256,
        unified_agprs: true,
        sgprs: 102,
        packed_f32: true,
        fp8: Fp8::Ocp,
        sdwa: true,
        dpp8: false,
        mfma: true,
        wmma: false,
    },
    Profile {
        arch: Arch::Cdna5,
        name: "cdna5",
        title: "CDNA 5",
        aliases: &[],
        targets: &["gfx1250", "gfx1251"],
        family: Family::Gfx125,
        wheel: Wheel::Rdna4,
        wave_sizes: WAVE32,
        default_wave: 32,
        agprs: 0,
        unified_agprs: false,
        sgprs: 106,
        packed_f32: true,
        fp8: Fp8::Ocp,
        sdwa: false,
        dpp8: true,
        mfma: false,
        wmma: true,
    },
];

impl Arch {
    /// Every arch, in a fixed order (RDNA by generation, then CDNA by generation).
    pub const ALL: [Arch; 9] = [
        Arch::Rdna1,
        Arch::Rdna2,
        Arch::Rdna3,
        Arch::Rdna4,
        Arch::Cdna1,
        Arch::Cdna2,
        Arch::Cdna3,
        Arch::Cdna,
        Arch::Cdna5,
    ];

    /// The arches whose database is the wheel's own (one per [`Wheel`] folder).
    pub const WHEEL: [Arch; 3] = [Arch::Rdna3, Arch::Rdna4, Arch::Cdna];

    /// The arch's profile.
    pub const fn profile(self) -> &'static Profile {
        &PROFILES[self as usize]
    }

    /// The name used on the command line and in reports (`cdna` for CDNA 4).
    pub fn name(self) -> &'static str {
        self.profile().name
    }

    /// The generation.
    pub fn family(self) -> Family {
        self.profile().family
    }

    /// The wheel folder whose text and encoding layouts the arch derives from.
    pub fn wheel(self) -> Wheel {
        self.profile().wheel
    }

    /// Whether the arch's database is the wheel's own rather than derived from it.
    pub fn is_wheel(self) -> bool {
        self.wheel().arch() == self
    }

    /// Whether the arch is of the GFX9 family (CDNA 1-4): wave64, SDWA, AGPRs,
    /// the GFX9 operand codes and waitcnt layout.
    pub fn is_gfx9(self) -> bool {
        self.family() == Family::Gfx9
    }

    /// The LLVM processor the tests target (`gfx942` for CDNA 3).
    pub fn target(self) -> &'static str {
        self.profile().targets[0]
    }

    /// The wave size used when none is asked for.
    pub fn default_wave(self) -> u32 {
        self.profile().default_wave
    }

    /// Whether the hardware runs waves of `size` lanes.
    pub fn supports_wave(self, size: u32) -> bool {
        self.profile().wave_sizes.contains(&size)
    }

    /// Parses an arch name (`rdna1` .. `rdna4`, `cdna1` .. `cdna5`, `cdna` = `cdna4`),
    /// a family alias (`gfx11`, `gfx12`, `gfx9` = CDNA 4) or an LLVM processor name
    /// (`gfx1010`, `gfx90a`, `gfx942`, ...). Case does not matter.
    pub fn from_name(name: &str) -> Option<Arch> {
        let name = name.to_ascii_lowercase();
        PROFILES
            .iter()
            .find(|p| {
                p.name == name
                    || p.aliases.contains(&name.as_str())
                    || p.targets.contains(&name.as_str())
            })
            .map(|p| p.arch)
    }

    /// Whether the text of instruction `name` in the arch's wheel folder describes the
    /// instruction on this arch too. Not for the 8-bit float instructions (names with
    /// `FP8` or `BF8`) of an arch whose FP8 formats differ from the folder's (CDNA 3's FNUZ
    /// formats against CDNA 4's OCP ones); neither AMD's text nor our errata of the folder
    /// apply to those.
    pub fn shares_text(self, name: &str) -> bool {
        let base = self.wheel().arch();
        self.profile().fp8 == base.profile().fp8 || !(name.contains("FP8") || name.contains("BF8"))
    }

    /// The accepted arch names, for error messages.
    pub fn names() -> String {
        let mut names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        names.push("cdna4");
        names.join(", ")
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_in_arch_order() {
        for (i, arch) in Arch::ALL.into_iter().enumerate() {
            assert_eq!(arch as usize, i);
            assert_eq!(arch.profile().arch, arch);
        }
    }

    #[test]
    fn names_targets_and_aliases_parse() {
        let cases = [
            ("rdna3", Arch::Rdna3),
            ("gfx1100", Arch::Rdna3),
            ("GFX11", Arch::Rdna3),
            ("rdna4", Arch::Rdna4),
            ("gfx1200", Arch::Rdna4),
            ("cdna", Arch::Cdna),
            ("cdna4", Arch::Cdna),
            ("gfx950", Arch::Cdna),
            ("gfx9", Arch::Cdna),
            ("rdna1", Arch::Rdna1),
            ("gfx1010", Arch::Rdna1),
            ("rdna2", Arch::Rdna2),
            ("gfx1030", Arch::Rdna2),
            ("cdna1", Arch::Cdna1),
            ("gfx908", Arch::Cdna1),
            ("cdna2", Arch::Cdna2),
            ("gfx90a", Arch::Cdna2),
            ("cdna3", Arch::Cdna3),
            ("gfx942", Arch::Cdna3),
            ("gfx9-4-generic", Arch::Cdna3),
            ("cdna5", Arch::Cdna5),
            ("gfx1250", Arch::Cdna5),
        ];
        for (name, arch) in cases {
            assert_eq!(Arch::from_name(name), Some(arch), "{name}");
        }
        assert_eq!(Arch::from_name("gfx906"), None);
        assert_eq!(Arch::from_name("cdna6"), None);
        for arch in Arch::ALL {
            assert_eq!(Arch::from_name(arch.name()), Some(arch));
            assert_eq!(Arch::from_name(arch.target()), Some(arch));
        }
    }

    #[test]
    fn each_arch_derives_from_its_family_wheel_folder() {
        let wheel: Vec<(Arch, Wheel)> = Arch::ALL.iter().map(|a| (*a, a.wheel())).collect();
        assert_eq!(
            wheel,
            vec![
                (Arch::Rdna1, Wheel::Rdna3),
                (Arch::Rdna2, Wheel::Rdna3),
                (Arch::Rdna3, Wheel::Rdna3),
                (Arch::Rdna4, Wheel::Rdna4),
                (Arch::Cdna1, Wheel::Cdna),
                (Arch::Cdna2, Wheel::Cdna),
                (Arch::Cdna3, Wheel::Cdna),
                (Arch::Cdna, Wheel::Cdna),
                (Arch::Cdna5, Wheel::Rdna4),
            ]
        );
        let own: Vec<Arch> = Arch::ALL.into_iter().filter(|a| a.is_wheel()).collect();
        assert_eq!(own, Arch::WHEEL);
    }

    #[test]
    fn gfx9_arches_run_wave64_only_and_have_agprs() {
        for arch in Arch::ALL {
            let p = arch.profile();
            assert!(p.wave_sizes.contains(&p.default_wave), "{arch}");
            if arch.is_gfx9() {
                assert_eq!(p.wave_sizes, &[64]);
                assert_eq!(p.agprs, 256);
                assert_eq!(p.sgprs, 102);
            } else {
                assert_eq!(p.default_wave, 32);
                assert_eq!(p.agprs, 0);
            }
        }
        assert!(!Arch::Cdna1.profile().unified_agprs);
        assert!(Arch::Cdna2.profile().unified_agprs);
        assert!(!Arch::Cdna1.profile().packed_f32);
        assert_eq!(Arch::Cdna3.profile().fp8, Fp8::Fnuz);
        assert_eq!(Arch::Cdna.profile().fp8, Fp8::Ocp);
    }
}
