//! The GFX10 (RDNA 1, RDNA 2) databases derived from RDNA 3's and the checked-in tables.

mod common;

use amdpcode::spec::targets::{derive, target_data};
use amdpcode::spec::Arch;

fn db(target: &str) -> amdpcode::spec::SpecDb {
    let spec = common::spec();
    let arch = if target == "gfx1030" {
        Arch::Rdna2
    } else {
        Arch::Rdna1
    };
    derive(
        arch,
        spec.db(Arch::Rdna3),
        Some(spec.db(Arch::Cdna)),
        &target_data(target).unwrap(),
    )
    .unwrap()
}

#[test]
fn gfx1030_instructions_take_gfx10_opcodes_and_rdna3_text() {
    let db = db("gfx1030");
    let mov = db.get("S_MOV_B32").unwrap();
    assert_eq!((mov.encoding.as_str(), mov.opcode), ("SOP1", 3));
    assert!(mov.pcode.is_some());
    let andn2 = db.get("S_ANDN2_B32").unwrap();
    assert_eq!(andn2.opcode, 20);
    assert!(andn2.aliases.iter().any(|a| a == "S_AND_NOT1_B32"));
    let load = db.get("GLOBAL_LOAD_DWORD").unwrap();
    assert_eq!((load.encoding.as_str(), load.opcode), ("GLOBAL", 12));
    let mac = db.get("V_MAC_F32_E32");
    assert!(mac.is_none(), "gfx1030 has no v_mac_f32");
    let add = db.get("V_ADD_CO_U32").unwrap();
    assert_eq!((add.encoding.as_str(), add.opcode), ("VOP3SD", 0x30f));
    let sdwa = db.encoding("VOP1_SDWA").unwrap();
    assert!(sdwa.opcodes.contains(&1), "v_mov_b32 has an SDWA form");
    let n = db.instructions().len();
    let with_text = db.with_pcode().count();
    eprintln!("gfx1030: {n} instructions, {with_text} with RDNA 3 text");
    assert!(with_text * 10 > n * 8);
}

#[test]
fn gfx1010_instructions_rdna3_lacks_have_no_text() {
    let db = db("gfx1010");
    let mac = db.get("V_MAC_F32").unwrap();
    assert_eq!((mac.encoding.as_str(), mac.opcode), ("VOP2", 31));
    assert!(mac.pcode.is_none());
    // Scalar atomics: gone on RDNA 2 and 3, on CDNA too; operands lent by CDNA.
    let atomic = db.get("S_ATOMIC_ADD").unwrap();
    assert_eq!((atomic.encoding.as_str(), atomic.opcode), ("SMEM", 0x82));
    assert!(atomic.pcode.is_none());
    assert!(!atomic.operands.is_empty(), "operands lent by CDNA");
    let n = db.instructions().len();
    let with_text = db.with_pcode().count();
    eprintln!("gfx1010: {n} instructions, {with_text} with RDNA 3 text");
}

#[test]
fn the_spec_gives_rdna1_and_rdna2_databases() {
    let spec = common::spec();
    assert_eq!(spec.db(Arch::Rdna2).get("S_MOV_B32").unwrap().opcode, 3);
    assert_eq!(spec.db(Arch::Rdna2).arch(), Arch::Rdna2);
    assert!(spec.db(Arch::Rdna1).get("V_MAC_F32").is_some());
}

#[test]
fn every_gfx10_instruction_says_where_its_text_comes_from() {
    let spec = common::spec();
    for (target, min_text) in [("gfx1030", 1150), ("gfx1010", 1150)] {
        let arch = if target == "gfx1030" {
            Arch::Rdna2
        } else {
            Arch::Rdna1
        };
        let (db, report) = amdpcode::spec::targets::derive_report(
            arch,
            spec.db(Arch::Rdna3),
            Some(spec.db(Arch::Cdna)),
            &target_data(target).unwrap(),
        )
        .unwrap();
        assert_eq!(report.len(), db.instructions().len());
        let same = report
            .iter()
            .filter(|d| d.base.is_some() && !d.renamed)
            .count();
        let renamed = report.iter().filter(|d| d.renamed).count();
        let none: Vec<&str> = report
            .iter()
            .filter(|d| d.base.is_none())
            .map(|d| d.name.as_str())
            .collect();
        eprintln!(
            "{target}: {} instructions: {same} from RDNA 3 text of the same name, {renamed} from RDNA 3 text under another name, {} without text",
            report.len(),
            none.len()
        );
        assert!(same + renamed >= min_text);
        // An instruction has text exactly when it has a base instruction.
        for (d, i) in report.iter().zip(db.instructions()) {
            assert_eq!(
                d.base.is_some(),
                i.pcode.is_some()
                    || d.base.as_deref().is_some_and(|b| spec
                        .db(Arch::Rdna3)
                        .get(b)
                        .is_some_and(|x| x.pcode.is_none())),
                "{}",
                d.name
            );
        }
        // ds_cmpst (GFX10) is not RDNA 3's ds_cmpstore: llvm-mc-22 has no gfx1100
        // spelling for it, so it is not derived.
        assert!(none.contains(&"DS_CMPST_RTN_B32"));
    }
}
