//! CDNA 5 (gfx1250) encodings beyond RDNA 4's: `scale_offset`, renamed instructions and the
//! operands of gfx1250's own instructions. Expected bytes are llvm-mc-22's
//! (`llvm-mc-22 -triple=amdgcn -mcpu=gfx1250 -show-encoding`).

mod common;

use amdpcode::spec::Arch;
use common::asm::{isa, round_trip};

#[test]
fn scale_offset_round_trips_on_flat_family_and_scalar_loads() {
    let Some(isa) = isa(Arch::Cdna5) else { return };
    round_trip(
        &isa,
        "global_load_b32 v1, v2, s[0:1] scale_offset",
        &[
            0x00, 0x00, 0x05, 0xee, 0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
        ],
    );
    round_trip(
        &isa,
        "global_load_b32 v1, v2, s[0:1] offset:16 scale_offset th:TH_LOAD_NT scope:SCOPE_DEV",
        &[
            0x00, 0x00, 0x05, 0xee, 0x01, 0x00, 0x19, 0x00, 0x02, 0x10, 0x00, 0x00,
        ],
    );
    round_trip(
        &isa,
        "scratch_load_b32 v1, v2, off scale_offset",
        &[
            0x7c, 0x00, 0x05, 0xed, 0x01, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00,
        ],
    );
    round_trip(
        &isa,
        "s_load_b32 s1, s[2:3], s4 offset:0x10 scale_offset",
        &[0x41, 0x00, 0x00, 0xf4, 0x10, 0x00, 0x00, 0x09],
    );
    // The bit is decoded: the same word without it prints without it.
    let (inst, _) = isa
        .decode(&[
            0x00, 0x00, 0x05, 0xee, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
        ])
        .expect("decodes");
    assert_eq!(inst.field("scale_offset"), Some(0));
    assert_eq!(isa.print(&inst), "global_load_b32 v1, v2, s[0:1]");
}

#[test]
fn scale_offset_is_refused_where_the_encoding_has_no_such_bit() {
    let Some(cdna5) = isa(Arch::Cdna5) else {
        return;
    };
    // llvm-mc refuses it on buffer accesses too.
    assert!(cdna5
        .assemble("buffer_load_b32 v1, v2, s[0:3], s4 offen scale_offset")
        .is_err());
    let Some(rdna4) = isa(Arch::Rdna4) else {
        return;
    };
    assert!(rdna4
        .assemble("global_load_b32 v1, v2, s[0:1] scale_offset")
        .is_err());
}

#[test]
fn renamed_and_target_only_instructions_have_their_operands() {
    let Some(isa) = isa(Arch::Cdna5) else { return };
    round_trip(&isa, "s_get_pc_i64 s[0:1]", &[0x00, 0x47, 0x80, 0xbe]);
    // The RDNA 4 name stays accepted.
    assert_eq!(
        isa.assemble("s_getpc_b64 s[0:1]").expect("alias"),
        [0x00, 0x47, 0x80, 0xbe]
    );
    round_trip(
        &isa,
        "v_add_nc_u64_e32 v[0:1], v[2:3], v[6:7]",
        &[0x02, 0x0d, 0x00, 0x50],
    );
    round_trip(
        &isa,
        "v_mad_u32 v0, ttmp9, s2, v0",
        &[0x00, 0x00, 0x35, 0xd6, 0x75, 0x04, 0x00, 0x04],
    );
}

/// `(text, llvm-mc-22 -mcpu=gfx1250 -show-encoding bytes)`.
type Case = (&'static str, &'static [u8]);

#[test]
fn vopd3_words_round_trip_with_modifiers_third_sources_and_f64_halves() {
    let Some(isa) = isa(Arch::Cdna5) else { return };
    let cases: &[Case] = &[
        (
            "v_dual_add_nc_u32 v1, v2, v3 :: v_dual_lshlrev_b32 v4, v5, v6",
            &[0x02, 0x11, 0x41, 0xcf, 0x05, 0x01, 0x03, 0x00, 0x01, 0x06, 0x00, 0x04],
        ),
        (
            "v_dual_add_f32 v1, -v2, v3 :: v_dual_mul_f32 v4, v5, -v6",
            &[0x02, 0x31, 0x10, 0xcf, 0x05, 0x23, 0x03, 0x00, 0x01, 0x06, 0x00, 0x04],
        ),
        (
            "v_dual_cndmask_b32 v1, -v2, v3, s4 :: v_dual_mov_b32 v4, v5",
            &[0x02, 0x81, 0x24, 0xcf, 0x05, 0x03, 0x03, 0x04, 0x01, 0x00, 0x00, 0x04],
        ),
        (
            "v_dual_add_nc_u32 v8, v9, v10 :: v_dual_cndmask_b32 v9, v11, v12, s0",
            &[0x09, 0x91, 0x40, 0xcf, 0x0b, 0x01, 0x0a, 0x00, 0x08, 0x0c, 0x00, 0x09],
        ),
        (
            "v_dual_fma_f64 v[20:21], -v[22:23], v[24:25], v[26:27] :: v_dual_sub_nc_u32 v30, 5, v31",
            &[0x16, 0x41, 0x81, 0xcf, 0x85, 0x02, 0x18, 0x1a, 0x14, 0x1f, 0x00, 0x1e],
        ),
        (
            "v_dual_mul_f32 v1, 1.0, v3 :: v_dual_fma_f32 v4, -v5, v6, -v7",
            &[0xf2, 0x30, 0x0d, 0xcf, 0x05, 0x51, 0x03, 0x00, 0x01, 0x06, 0x07, 0x04],
        ),
        (
            "v_dual_lshlrev_b32 v3, 2, v0 :: v_dual_bitop2_b32 v0, 1, v0 bitop3:0x14",
            &[0x82, 0x20, 0x45, 0xcf, 0x81, 0x00, 0x00, 0x00, 0x03, 0x00, 0x14, 0x00],
        ),
        (
            "v_dual_add_nc_u32 v1, s1, v4 :: v_dual_lshlrev_b32 v6, s2, v5",
            &[0x01, 0x10, 0x41, 0xcf, 0x02, 0x00, 0x04, 0x00, 0x01, 0x05, 0x00, 0x06],
        ),
        // Two moves may share a `src0` bank in VOPD3 (VOPD cannot hold this pair).
        (
            "v_dual_mov_b32 v1, v2 :: v_dual_mov_b32 v3, v6",
            &[0x02, 0x81, 0x20, 0xcf, 0x06, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x03],
        ),
    ];
    for (text, bytes) in cases {
        round_trip(&isa, text, bytes);
    }
    // A pair VOPD holds stays VOPD (8 bytes), as llvm-mc encodes it.
    assert_eq!(
        isa.assemble("v_dual_add_f32 v1, v2, v3 :: v_dual_mul_f32 v4, v5, v6")
            .expect("vopd"),
        [0x02, 0x07, 0x06, 0xc9, 0x05, 0x0d, 0x04, 0x01]
    );
}

#[test]
fn vopd3_pairs_llvm_mc_refuses_are_refused() {
    let Some(cdna5) = isa(Arch::Cdna5) else {
        return;
    };
    for bad in [
        // src1 banks (3 and 7), src0 banks of a pair (22..23 and 31), src2 banks (4 and 8,
        // the accumulator of fmac), three scalar values, a literal, `neg` on an integer half.
        "v_dual_add_nc_u32 v1, v2, v3 :: v_dual_lshlrev_b32 v4, v5, v7",
        "v_dual_add_f64 v[20:21], v[22:23], -v[24:25] :: v_dual_mov_b32 v30, v31",
        "v_dual_fmac_f32 v4, v2, v3 :: v_dual_fma_f32 v5, v7, v6, v8",
        "v_dual_add_nc_u32 v1, s1, v4 :: v_dual_cndmask_b32 v6, s2, v5, s3",
        "v_dual_add_nc_u32 v1, 0x1234, v3 :: v_dual_lshlrev_b32 v4, 1, v6",
        "v_dual_add_nc_u32 v1, -v2, v3 :: v_dual_lshlrev_b32 v4, v5, v6",
    ] {
        assert!(cdna5.assemble(bad).is_err(), "{bad}");
    }
    // Not gfx1250: no VOPD3 word, and the 0xcf byte is no VOPD3 there.
    let Some(rdna4) = isa(Arch::Rdna4) else {
        return;
    };
    assert!(rdna4
        .assemble("v_dual_add_nc_u32 v1, s1, v4 :: v_dual_lshlrev_b32 v6, s2, v5")
        .is_err());
}

#[test]
fn literals_of_64_bits_round_trip_where_llvm_takes_them() {
    let Some(cdna5) = isa(Arch::Cdna5) else {
        return;
    };
    let cases: &[Case] = &[
        (
            "v_mov_b64_e32 v[2:3], 0x7fffffff80000000",
            &[
                0xfe, 0x3a, 0x04, 0x7e, 0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0x7f,
            ],
        ),
        (
            "v_add_nc_u64_e32 v[2:3], lit64(0x5), v[4:5]",
            &[
                0xfe, 0x08, 0x04, 0x50, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            ],
        ),
        (
            "v_add_f64_e32 v[2:3], 0x3ff0000000000001, v[4:5]",
            &[
                0xfe, 0x08, 0x04, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f,
            ],
        ),
        (
            "v_cmp_eq_u64_e32 vcc_lo, 0x123456789, v[2:3]",
            &[
                0xfe, 0x04, 0xb4, 0x7c, 0x89, 0x67, 0x45, 0x23, 0x01, 0x00, 0x00, 0x00,
            ],
        ),
        (
            "s_mov_b64 s[2:3], 0x7fffffff80000000",
            &[
                0xfe, 0x01, 0x82, 0xbe, 0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0x7f,
            ],
        ),
        (
            "s_add_nc_u64 s[0:1], s[2:3], 0x123456789",
            &[
                0x02, 0xfe, 0x80, 0xa9, 0x89, 0x67, 0x45, 0x23, 0x01, 0x00, 0x00, 0x00,
            ],
        ),
        (
            "v_fmamk_f64 v[2:3], v[4:5], 0x4000000000000001, v[6:7]",
            &[
                0x04, 0x0d, 0x04, 0x46, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
            ],
        ),
        (
            "v_fmaak_f64 v[2:3], v[4:5], v[6:7], 0x40000000",
            &[
                0x04, 0x0d, 0x04, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
            ],
        ),
        (
            "s_mov_b64 s[6:7], src_flat_scratch_base_lo",
            &[0xe6, 0x01, 0x86, 0xbe],
        ),
        (
            "v_mov_b32_e32 v1, src_flat_scratch_base_hi",
            &[0xe7, 0x02, 0x02, 0x7e],
        ),
        (
            "s_get_shader_cycles_u64 s[10:11]",
            &[0x00, 0x06, 0x8a, 0xbe],
        ),
    ];
    for (text, bytes) in cases {
        round_trip(&cdna5, text, bytes);
    }
    // A 32-bit literal still serves where its value fits (llvm-mc picks it).
    assert_eq!(
        cdna5
            .assemble("v_mov_b64 v[2:3], 0x12345")
            .expect("32-bit literal"),
        [0xff, 0x3a, 0x04, 0x7e, 0x45, 0x23, 0x01, 0x00]
    );
    assert_eq!(
        cdna5
            .assemble("v_mov_b64 v[2:3], -17")
            .expect("64-bit literal"),
        [0xfe, 0x3a, 0x04, 0x7e, 0xef, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
    );
    // VOP3 takes no 64-bit literal; the decoder reads the two dwords as the instruction's.
    assert!(cdna5
        .assemble("v_add_f64_e64 v[2:3], 0x7fffffff80000000, v[4:5]")
        .is_err());
    let (_, len) = cdna5
        .decode(&[
            0xfe, 0x3a, 0x04, 0x7e, 0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0x7f,
        ])
        .expect("decodes");
    assert_eq!(len, 12);
    // On RDNA 4 the code is src_lds_direct and no literal follows.
    let Some(rdna4) = isa(Arch::Rdna4) else {
        return;
    };
    assert!(rdna4
        .assemble("v_mov_b64_e32 v[2:3], 0x7fffffff80000000")
        .is_err());
}
