//! CDNA 5 (gfx1250) encodings beyond RDNA 4's: `scale_offset`, renamed instructions and the
//! operands of gfx1250's own instructions. Expected bytes are llvm-mc-22's
//! (`llvm-mc-22 -triple=amdgcn -mcpu=gfx1250 -show-encoding`).

use amdpcode::isa::Isa;
use amdpcode::spec::{self, Arch};

fn isa(arch: Arch) -> Option<Isa> {
    let Ok(wheel) = spec::find_wheel(&spec::Locate {
        explicit: None,
        offline: true,
    }) else {
        eprintln!("skipped: spec wheel not found");
        return None;
    };
    Some(Isa::from_wheel(&wheel, arch).expect("wheel loads"))
}

/// Assembles `text`, compares with `bytes`, decodes `bytes` and prints `text` back.
fn round_trip(isa: &Isa, text: &str, bytes: &[u8]) {
    assert_eq!(isa.assemble(text).expect(text), bytes, "{text}");
    let (inst, len) = isa.decode(bytes).expect(text);
    assert_eq!(len, bytes.len(), "{text}");
    assert_eq!(isa.print(&inst), text);
}

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
