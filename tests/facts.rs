//! The instruction facts (`amdpcode::machine::facts`) of every entry of every arch that has a
//! database, checked against expectations per family: memory kind, loads and stores,
//! atomics and their return rule, the counter each memory instruction increments, the
//! counters each wait decodes (with llvm-mc-22's encodings), lane-mask operand widths by
//! wave size, and the executor's control class of the instructions it treats itself.

mod common;

use amdpcode::machine::{
    Barrier, Branch, ClampOp, Control, Counter, DsLanes, ElemType, Encoding, Event, Facts, Family,
    InstFacts, IntClamp, LaneOp, MemKind, Native, Refusal, RegSpaces, Rtn,
};
use amdpcode::spec::{Arch, SpecDb, Wheel};

/// Every arch with a database, each with its database and facts.
fn arches() -> Vec<(Arch, &'static SpecDb, std::sync::Arc<Facts>)> {
    let spec = common::spec();
    let out: Vec<_> = Arch::ALL
        .iter()
        .filter_map(|&a| spec.get(a).ok().map(|db| (a, db, Facts::of(db))))
        .collect();
    // Every named arch: the wheel's three and the generations derived from them.
    let missing: Vec<Arch> = Arch::ALL
        .into_iter()
        .filter(|a| !out.iter().any(|(b, _, _)| a == b))
        .collect();
    assert!(missing.is_empty(), "no database for {missing:?}");
    out
}

/// The facts of entry `name` in encoding `family` of `db`.
fn fact<'a>(db: &SpecDb, facts: &'a Facts, family: &str, name: &str) -> &'a InstFacts {
    let i = db
        .instructions()
        .iter()
        .position(|i| i.name == name && i.encoding == family)
        .unwrap_or_else(|| panic!("{}: no {family} {name}", db.arch()));
    &facts.all()[i]
}

/// The counter vector loads increment on `arch`, and stores.
fn vmem_counters(arch: Arch) -> (Counter, Counter) {
    match arch.wheel() {
        Wheel::Rdna4 => (Counter::Load, Counter::Store),
        Wheel::Rdna3 => (Counter::Vm, Counter::Vs),
        Wheel::Cdna => (Counter::Vm, Counter::Vm),
    }
}

#[test]
fn every_entry_has_facts_of_its_own_family_and_index() {
    for (arch, db, facts) in arches() {
        assert_eq!(facts.all().len(), db.instructions().len(), "{arch}");
        for (i, (inst, f)) in db.instructions().iter().zip(facts.all()).enumerate() {
            assert_eq!(f.index as usize, i, "{arch} {}", inst.name);
            assert_eq!(f.family.name(), inst.encoding, "{arch} {}", inst.name);
            assert_ne!(f.family, Family::Other, "{arch} {}", inst.name);
            let found = facts.find(&inst.encoding, inst.opcode).unwrap();
            assert_eq!(found.index as usize, i, "{arch} {} by opcode", inst.name);
            assert_eq!(facts.operands(f.index).len(), inst.operands.len());
        }
    }
}

#[test]
fn every_global_load_returns_data_and_increments_the_vector_load_counter() {
    for (arch, db, facts) in arches() {
        let (load, _) = vmem_counters(arch);
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            let global = matches!(inst.encoding.as_str(), "GLOBAL" | "VGLOBAL");
            if !global || !inst.name.starts_with("GLOBAL_LOAD_") {
                continue;
            }
            n += 1;
            assert_eq!(f.mem, MemKind::Global, "{arch} {}", inst.name);
            assert_eq!(f.rtn, Rtn::Always, "{arch} {}", inst.name);
            assert!(f.loads && !f.stores && !f.atomic, "{arch} {}", inst.name);
            assert!(f.returns_data(|_| None), "{arch} {}", inst.name);
            assert_eq!(
                f.event(arch, true, false),
                Some((load, Event::VmemLoad)),
                "{arch} {}",
                inst.name
            );
        }
        assert!(n >= 10, "{arch}: {n} global loads");
    }
}

#[test]
fn every_global_store_writes_memory_and_increments_the_store_counter() {
    for (arch, db, facts) in arches() {
        let (_, store) = vmem_counters(arch);
        // CDNA counts stores with loads, as one in-order stream.
        let event = if arch.wheel() == Wheel::Cdna {
            Event::VmemLoad
        } else {
            Event::VmemStore
        };
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            if !inst.name.starts_with("GLOBAL_STORE_") {
                continue;
            }
            n += 1;
            assert_eq!(f.rtn, Rtn::Never, "{arch} {}", inst.name);
            assert!(f.stores && !f.loads && !f.atomic, "{arch} {}", inst.name);
            assert_eq!(
                f.event(arch, false, false),
                Some((store, event)),
                "{arch} {}",
                inst.name
            );
        }
        assert!(n >= 6, "{arch}: {n} global stores");
    }
}

#[test]
fn every_atomic_returns_data_only_with_its_return_bit() {
    for (arch, db, facts) in arches() {
        let bit = match arch.wheel() {
            Wheel::Rdna3 => "glc",
            Wheel::Rdna4 => "th",
            Wheel::Cdna => "sc0",
        };
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            // (DS atomics have separate `_RTN` opcodes: checked with the LDS instructions.)
            if !inst.name.contains("_ATOMIC_") || inst.encoding == "DS" {
                continue;
            }
            n += 1;
            assert_eq!(f.rtn, Rtn::ReturnBit, "{arch} {}", inst.name);
            assert!(f.atomic && f.loads && f.stores, "{arch} {}", inst.name);
            // Vector memory atomics run their text lane by lane.
            assert_eq!(
                f.lane_serial,
                f.mem != MemKind::Scalar,
                "{arch} {}",
                inst.name
            );
            assert!(
                f.returns_data(|x| (x == bit).then_some(1)),
                "{arch} {}",
                inst.name
            );
            assert!(
                !f.returns_data(|x| (x == bit).then_some(0)),
                "{arch} {}",
                inst.name
            );
        }
        assert!(n >= 20, "{arch}: {n} atomics");
    }
}

#[test]
fn every_lds_instruction_counts_on_the_lds_counter_and_rtn_forms_return_data() {
    for (arch, db, facts) in arches() {
        let counter = if arch.wheel() == Wheel::Rdna4 {
            Counter::Ds
        } else {
            Counter::Lgkm
        };
        let (mut n, mut rtn) = (0, 0);
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            if inst.encoding != "DS" {
                continue;
            }
            n += 1;
            assert_eq!(f.mem, MemKind::Lds, "{arch} {}", inst.name);
            assert_eq!(f.event(arch, false, false), Some((counter, Event::Lds)));
            if inst.name.contains("_RTN") {
                rtn += 1;
                assert_eq!(f.rtn, Rtn::Always, "{arch} {}", inst.name);
            }
            // DS has no return bit: an entry returns data exactly when it lists `vdst`.
            let vdst = inst.operands.iter().any(|o| o.field == "vdst");
            let want = if vdst { Rtn::Always } else { Rtn::Never };
            assert_eq!(f.rtn, want, "{arch} {}", inst.name);
            if inst.name.starts_with("DS_ADD_U32") || inst.name.starts_with("DS_CMPST") {
                assert!(f.atomic, "{arch} {}", inst.name);
            }
            if ["DS_READ_B32", "DS_LOAD_B32", "DS_WRITE_B32", "DS_STORE_B32"]
                .contains(&inst.name.as_str())
            {
                assert!(!f.atomic && !f.lane_serial, "{arch} {}", inst.name);
                assert_eq!(f.bytes, 4);
            }
        }
        assert!(n >= 60 && rtn >= 20, "{arch}: {n} DS, {rtn} _RTN");
    }
}

#[test]
fn scalar_loads_count_on_the_scalar_counter_and_alu_encodings_touch_no_memory() {
    for (arch, db, facts) in arches() {
        let counter = if arch.wheel() == Wheel::Rdna4 {
            Counter::Km
        } else {
            Counter::Lgkm
        };
        let mut loads = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            if inst.encoding == "SMEM" && inst.name.starts_with("S_LOAD_") {
                loads += 1;
                assert_eq!(f.mem, MemKind::Scalar);
                assert_eq!(f.rtn, Rtn::Always, "{arch} {}", inst.name);
                assert_eq!(f.event(arch, true, false), Some((counter, Event::Smem)));
            }
            if inst.encoding.starts_with("VOP") {
                assert!(
                    f.family.is_valu() && !f.family.is_salu(),
                    "{arch} {}",
                    inst.name
                );
                assert_eq!(f.mem, MemKind::None);
                assert_eq!(f.event(arch, false, false), None);
            }
            if inst.encoding.starts_with("SOP") {
                assert!(
                    f.family.is_salu() && !f.family.is_valu(),
                    "{arch} {}",
                    inst.name
                );
                assert_eq!(f.mem, MemKind::None);
            }
        }
        assert!(loads >= 5, "{arch}: {loads} scalar loads");
    }
}

#[test]
fn buffer_accesses_count_as_vector_memory_and_format_scalar_gfx1250_and_image_forms_are_refused() {
    let (mut arches_with_mubuf, mut scalar_buffer) = (0, 0);
    for (arch, db, facts) in arches() {
        let (load, store) = vmem_counters(arch);
        let (mut n, mut format) = (0, 0);
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            let name = inst.name.as_str();
            if inst.encoding == "SMEM" && name.starts_with("S_BUFFER_") {
                scalar_buffer += 1;
                assert_eq!(f.refusal, Some(Refusal::ScalarBuffer), "{arch} {name}");
            }
            if matches!(inst.encoding.as_str(), "MIMG" | "VIMAGE" | "VSAMPLE") {
                assert_eq!(f.refusal, Some(Refusal::Image), "{arch} {name}");
                assert_eq!(f.mem, MemKind::Image, "{arch} {name}");
            }
            if !matches!(inst.encoding.as_str(), "MUBUF" | "MTBUF" | "VBUFFER") {
                assert_ne!(f.refusal, Some(Refusal::BufferFormat), "{arch} {name}");
                continue;
            }
            n += 1;
            assert_eq!(f.mem, MemKind::Buffer, "{arch} {name}");
            assert!(f.family.is_wave_memory(), "{arch} {name}");
            if arch == Arch::Cdna5 {
                // gfx1250's V# layout is not modelled: every buffer access is refused.
                assert_eq!(f.refusal, Some(Refusal::BufferResource), "{arch} {name}");
                continue;
            }
            if name.contains("FORMAT") {
                format += 1;
                assert_eq!(f.refusal, Some(Refusal::BufferFormat), "{arch} {name}");
            } else if name.starts_with("BUFFER_LOAD_LDS_") {
                assert_eq!(f.control, Control::Native(Native::LdsDma), "{arch} {name}");
            }
            if name.starts_with("BUFFER_ATOMIC_") {
                assert_eq!(f.rtn, Rtn::ReturnBit, "{arch} {name}");
                assert!(f.atomic && f.lane_serial, "{arch} {name}");
            }
        }
        assert!(n > 0, "{arch} has no buffer instructions");
        if arch == Arch::Cdna5 {
            continue;
        }
        arches_with_mubuf += 1;
        // RDNA 4 encodes them as VBUFFER.
        let enc = if arch.wheel() == Wheel::Rdna4 {
            "VBUFFER"
        } else {
            "MUBUF"
        };
        assert!(format >= 8, "{arch}: {format} format accesses");
        let (dword, x4) =
            if arch.wheel() == Wheel::Cdna || matches!(arch, Arch::Rdna1 | Arch::Rdna2) {
                ("BUFFER_LOAD_DWORD", "BUFFER_STORE_DWORDX4")
            } else {
                ("BUFFER_LOAD_B32", "BUFFER_STORE_B128")
            };
        let l = fact(db, &facts, enc, dword);
        assert!(l.load_only && l.loads && !l.stores && !l.atomic, "{arch}");
        assert_eq!(
            (l.bytes, l.rtn, l.refusal),
            (4, Rtn::Always, None),
            "{arch}"
        );
        assert_eq!(l.event(arch, true, false), Some((load, Event::VmemLoad)));
        let s = fact(db, &facts, enc, x4);
        assert!(s.stores && !s.loads && !s.load_only, "{arch}");
        assert_eq!((s.bytes, s.rtn), (16, Rtn::Never), "{arch}");
        let stored = if arch.wheel() == Wheel::Cdna {
            Event::VmemLoad
        } else {
            Event::VmemStore
        };
        assert_eq!(s.event(arch, false, false), Some((store, stored)));
    }
    assert!(
        arches_with_mubuf >= 8,
        "{arches_with_mubuf} arches with executable buffer accesses"
    );
    assert!(scalar_buffer > 0);
}

#[test]
fn flat_operations_that_reach_lds_count_as_lds() {
    for (arch, db, facts) in arches() {
        let flat = if arch.wheel() == Wheel::Rdna4 {
            "VFLAT"
        } else {
            "FLAT"
        };
        let name = if arch.wheel() == Wheel::Cdna || matches!(arch, Arch::Rdna1 | Arch::Rdna2) {
            "FLAT_LOAD_DWORD"
        } else {
            "FLAT_LOAD_B32"
        };
        let f = fact(db, &facts, flat, name);
        assert_eq!(f.mem, MemKind::Flat);
        let lds = if arch.wheel() == Wheel::Rdna4 {
            Counter::Ds
        } else {
            Counter::Lgkm
        };
        assert_eq!(f.event(arch, true, true), Some((lds, Event::Lds)), "{arch}");
        assert_eq!(
            f.event(arch, true, false).unwrap().1,
            Event::VmemLoad,
            "{arch}"
        );
    }
}

#[test]
fn waitcnt_fields_decode_llvm_mc_encodings_per_arch() {
    let id = |x: u32| x;
    for (arch, db, facts) in arches() {
        let has = |n: &str| db.instructions().iter().any(|i| i.name == n);
        if has("S_WAITCNT") && arch.wheel() != Wheel::Rdna4 {
            let f = fact(db, &facts, "SOPP", "S_WAITCNT");
            // `s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)`: gfx1100 0x0432, gfx1030 and gfx9xx
            // 0x0321 (llvm-mc-22 -show-encoding).
            let imm = match arch {
                Arch::Rdna3 => 0x0432,
                _ => 0x0321,
            };
            let mut got = f.wait_thresholds(arch, imm, &id);
            got.sort_by_key(|&(c, _)| c.name());
            assert_eq!(
                got,
                vec![(Counter::Exp, 2), (Counter::Lgkm, 3), (Counter::Vm, 1)],
                "{arch}"
            );
            if arch.is_gfx9() {
                // vmcnt 63 sets bits 15:14 too.
                let all = f.wait_thresholds(arch, 0xc00f, &id);
                assert!(all.contains(&(Counter::Vm, 63)), "{arch}");
            }
        } else {
            assert_eq!(arch.wheel(), Wheel::Rdna4, "{arch} has no s_waitcnt");
            // GFX12's table lists S_WAITCNT, which the hardware does not have: no wait.
            if has("S_WAITCNT") {
                assert_eq!(fact(db, &facts, "SOPP", "S_WAITCNT").wait, None);
            }
        }
        if arch.wheel() == Wheel::Rdna4 {
            // gfx1200 `s_wait_loadcnt_dscnt 0x302`, `s_wait_kmcnt 1`.
            let f = fact(db, &facts, "SOPP", "S_WAIT_LOADCNT_DSCNT");
            assert_eq!(
                f.wait_thresholds(arch, 0x302, &id),
                vec![(Counter::Load, 3), (Counter::Ds, 2)]
            );
            let f = fact(db, &facts, "SOPP", "S_WAIT_KMCNT");
            assert_eq!(f.wait_thresholds(arch, 1, &id), vec![(Counter::Km, 1)]);
            assert_eq!(f.control, Control::Noop);
        }
        if has("S_WAITCNT_VSCNT") {
            // gfx1100 `s_waitcnt_vscnt null, 0x5`; a non-null SGPR adds its value.
            let f = fact(db, &facts, "SOPK", "S_WAITCNT_VSCNT");
            assert_eq!(f.wait_thresholds(arch, 5, &id), vec![(Counter::Vs, 5)]);
            assert_eq!(
                f.wait_thresholds(arch, 5, &|x| x + 2),
                vec![(Counter::Vs, 7)]
            );
        }
        let nop = fact(db, &facts, "SOPP", "S_NOP");
        assert!(nop.wait.is_none() && nop.nop && nop.control == Control::Noop);
    }
}

#[test]
fn lane_mask_operands_span_one_sgpr_in_wave32_and_two_in_wave64() {
    for (arch, db, facts) in arches() {
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            // Every VOP3 compare writes a lane mask (CDNA's table types it as a plain
            // 64-bit number).
            let vop3_cmp = inst.encoding == "VOP3" && inst.name.starts_with("V_CMP_");
            let cndmask = inst.name == "V_CNDMASK_B32_E64";
            if !vop3_cmp && !cndmask {
                continue;
            }
            let field = if cndmask { "src2" } else { "sdst" };
            let ops = facts.operands(f.index);
            let Some(o) = ops
                .iter()
                .find(|o| o.field == field || !cndmask && o.field == "vdst")
            else {
                panic!("{arch} {}: no {field}", inst.name)
            };
            n += 1;
            assert!(o.lane_mask, "{arch} {} {}", inst.name, o.field);
            assert_eq!((o.regs(32), o.regs(64)), (1, 2), "{arch} {}", inst.name);
            assert!(f.compare || cndmask);
        }
        assert!(n >= 20, "{arch}: {n} lane-mask instructions");
        let add = fact(db, &facts, "VOP2", "V_AND_B32_E32");
        let src0 = &facts.operands(add.index)[0];
        assert!(!src0.lane_mask && src0.regs(64) == 1, "{arch}");
    }
}

#[test]
fn control_instructions_have_their_executor_class() {
    for (arch, db, facts) in arches() {
        let f = |n: &str| fact(db, &facts, "SOPP", n);
        assert_eq!(f("S_ENDPGM").control, Control::End, "{arch}");
        if arch.wheel() == Wheel::Rdna4 {
            let signal = fact(db, &facts, "SOP1", "S_BARRIER_SIGNAL");
            assert_eq!(signal.control, Control::Barrier(Barrier::Signal));
            assert_eq!(f("S_BARRIER_WAIT").control, Control::Barrier(Barrier::Wait));
        } else {
            assert_eq!(
                f("S_BARRIER").control,
                Control::Barrier(Barrier::SignalWait)
            );
        }
        assert_eq!(f("S_BRANCH").branch, Branch::Jump);
        assert_eq!(f("S_CBRANCH_SCC0").branch, Branch::Conditional);
        assert_eq!(f("S_NOP").branch, Branch::None);
        let v = |n: &str| fact(db, &facts, "VOP3", n);
        assert_eq!(v("V_READLANE_B32").lane, LaneOp::ReadLane, "{arch}");
        assert_eq!(v("V_WRITELANE_B32").lane, LaneOp::WriteLane, "{arch}");
        assert!(v("V_READLANE_B32").cross_lane);
        let mov = fact(db, &facts, "SOP1", "S_MOV_B32");
        assert!(mov.smov && mov.control == Control::Execute && mov.mem == MemKind::None);
    }
}

#[test]
fn lds_lane_moves_and_lds_transfers_are_told_apart_from_lds_accesses() {
    for (arch, db, facts) in arches() {
        let has = |n: &str| db.instructions().iter().any(|i| i.name == n);
        let ds = |n: &str| fact(db, &facts, "DS", n).ds_lanes;
        assert_eq!(ds("DS_SWIZZLE_B32"), DsLanes::Swizzle, "{arch}");
        let permute = |backward, fetch_inactive| DsLanes::Permute {
            backward,
            fetch_inactive,
        };
        assert_eq!(ds("DS_PERMUTE_B32"), permute(false, false), "{arch}");
        assert_eq!(ds("DS_BPERMUTE_B32"), permute(true, false), "{arch}");
        if has("DS_BPERMUTE_FI_B32") {
            assert_eq!(ds("DS_BPERMUTE_FI_B32"), permute(true, true), "{arch}");
        }
        let load = if has("DS_LOAD_B32") {
            "DS_LOAD_B32"
        } else {
            "DS_READ_B32"
        };
        assert_eq!(ds(load), DsLanes::None, "{arch}");
        let mut transfers = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            // Only DS entries move values between lanes; LDS transfers are other families'.
            if inst.encoding != "DS" {
                assert_eq!(f.ds_lanes, DsLanes::None, "{arch} {}", inst.name);
            }
            if f.lds_transfer {
                transfers += 1;
                assert_ne!(f.family, Family::Ds, "{arch} {}", inst.name);
                assert_ne!(f.mem, MemKind::None, "{arch} {}", inst.name);
            }
        }
        if has("GLOBAL_LOAD_LDS_DWORD") {
            let f = fact(db, &facts, "GLOBAL", "GLOBAL_LOAD_LDS_DWORD");
            assert!(f.lds_transfer && f.control == Control::Native(Native::LdsDma));
            assert!(transfers >= 5, "{arch}: {transfers} LDS transfers");
        }
    }
}

#[test]
fn plain_dword_accesses_are_the_whole_dword_loads_and_stores_of_their_size() {
    let mut b_arches = 0;
    let mut dword_arches = 0;
    for (arch, db, facts) in arches() {
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            if f.plain_words == 0 {
                continue;
            }
            n += 1;
            // The dword count (from the name) agrees with the access size.
            assert_eq!(
                u32::from(f.bytes),
                4 * u32::from(f.plain_words),
                "{arch} {}",
                inst.name
            );
            assert!(
                !f.atomic && !f.d16 && !f.signed && !f.addtid,
                "{arch} {}",
                inst.name
            );
            assert!(f.load_only != f.stores, "{arch} {}", inst.name);
            assert!(
                matches!(
                    f.family,
                    Family::Global
                        | Family::Vglobal
                        | Family::Flat
                        | Family::Vflat
                        | Family::Scratch
                        | Family::Vscratch
                        | Family::Ds
                        | Family::Smem
                ),
                "{arch} {}",
                inst.name
            );
            // AMD's text moves exactly those dwords: one `MEM[...].b32` per dword and
            // address (two addresses for the DS two-address forms), nothing narrower.
            let text = inst.pcode.as_deref().unwrap_or("");
            let per_address = if f.ds_two > 0 { 2 } else { 1 };
            assert_eq!(
                text.matches("MEM[").count(),
                usize::from(f.plain_words) * per_address,
                "{arch} {}: {text}",
                inst.name
            );
            assert_eq!(
                text.matches("].b32").count(),
                usize::from(f.plain_words) * per_address,
                "{arch} {}: {text}",
                inst.name
            );
        }
        let has = |n: &str| db.instructions().iter().any(|i| i.name == n);
        if !has("GLOBAL_LOAD_B128") {
            // CDNA and GFX10 spell sizes `_DWORD*` (GLOBAL, SMEM) and `DS_READ`/`DS_WRITE`.
            dword_arches += 1;
            let plain = |enc: &str, name: &str| {
                let f = fact(db, &facts, enc, name);
                (f.plain_words, f.ds_two)
            };
            assert_eq!(plain("GLOBAL", "GLOBAL_LOAD_DWORD"), (1, 0), "{arch}");
            assert_eq!(plain("GLOBAL", "GLOBAL_STORE_DWORDX3"), (3, 0), "{arch}");
            assert_eq!(plain("GLOBAL", "GLOBAL_LOAD_UBYTE"), (0, 0), "{arch}");
            assert_eq!(plain("GLOBAL", "GLOBAL_LOAD_SHORT_D16"), (0, 0), "{arch}");
            assert_eq!(plain("SMEM", "S_LOAD_DWORDX16"), (16, 0), "{arch}");
            assert_eq!(plain("SMEM", "S_BUFFER_LOAD_DWORD"), (0, 0), "{arch}");
            assert_eq!(plain("DS", "DS_READ_B128"), (4, 0), "{arch}");
            assert_eq!(plain("DS", "DS_WRITE_B8"), (0, 0), "{arch}");
            assert_eq!(plain("DS", "DS_READ2ST64_B64"), (2, 64), "{arch}");
            assert_eq!(plain("DS", "DS_WRITE2_B32"), (1, 1), "{arch}");
            assert_eq!(plain("DS", "DS_READ_ADDTID_B32").0, 0, "{arch}");
            assert_eq!(plain("FLAT", "FLAT_LOAD_DWORDX2"), (2, 0), "{arch}");
            assert_eq!(plain("SCRATCH", "SCRATCH_STORE_DWORD"), (1, 0), "{arch}");
            assert_eq!(plain("SCRATCH", "SCRATCH_LOAD_SBYTE"), (0, 0), "{arch}");
            assert!(n >= 45, "{arch}: {n} plain accesses");
            continue;
        }
        b_arches += 1;
        let global = if arch.wheel() == Wheel::Rdna4 {
            "VGLOBAL"
        } else {
            "GLOBAL"
        };
        assert_eq!(fact(db, &facts, global, "GLOBAL_LOAD_B128").plain_words, 4);
        assert_eq!(fact(db, &facts, global, "GLOBAL_STORE_B32").plain_words, 1);
        assert_eq!(fact(db, &facts, global, "GLOBAL_LOAD_U8").plain_words, 0);
        assert_eq!(
            fact(db, &facts, global, "GLOBAL_LOAD_D16_B16").plain_words,
            0
        );
        assert_eq!(fact(db, &facts, "SMEM", "S_LOAD_B512").plain_words, 16);
        let (flat, scratch) = if arch.wheel() == Wheel::Rdna4 {
            ("VFLAT", "VSCRATCH")
        } else {
            ("FLAT", "SCRATCH")
        };
        assert_eq!(fact(db, &facts, flat, "FLAT_STORE_B96").plain_words, 3);
        assert_eq!(fact(db, &facts, scratch, "SCRATCH_LOAD_B64").plain_words, 2);
        let pair = fact(db, &facts, "DS", "DS_STORE_2ADDR_STRIDE64_B64");
        assert_eq!((pair.plain_words, pair.ds_two), (2, 64), "{arch}");
        let pair = fact(db, &facts, "DS", "DS_LOAD_2ADDR_B32");
        assert_eq!((pair.plain_words, pair.ds_two), (1, 1), "{arch}");
        assert!(pair.load_only && !pair.stores);
        assert_eq!(fact(db, &facts, "DS", "DS_ADD_U32").plain_words, 0);
    }
    assert!(b_arches >= 3, "{b_arches} arches with `_B<bits>` names");
    assert!(
        dword_arches >= 5,
        "{dword_arches} arches with `_DWORD*` names"
    );
}

#[test]
fn integer_clamp_matrix_accumulator_and_hardware_register_facts() {
    let spec = common::spec();
    let rdna3 = spec.db(Arch::Rdna3);
    let facts = Facts::of(rdna3);
    let f = |family: &str, n: &str| *fact(rdna3, &facts, family, n);
    let clamp = |op, signed, bits, carry_in| {
        Some(IntClamp {
            op,
            signed,
            bits,
            carry_in,
        })
    };
    assert_eq!(
        f("VOP3", "V_ADD_NC_U16").int_clamp,
        clamp(ClampOp::Add, false, 16, false)
    );
    assert_eq!(
        f("VOP3", "V_SUB_NC_I32").int_clamp,
        clamp(ClampOp::Sub, true, 32, false)
    );
    assert_eq!(
        f("VOP2", "V_SUB_CO_CI_U32_E32").int_clamp,
        clamp(ClampOp::Sub, false, 32, true)
    );
    assert_eq!(
        f("VOP3", "V_MAD_U32_U16").int_clamp,
        clamp(ClampOp::Mad, false, 32, false)
    );
    // 24-bit multiplies and float adds are not covered.
    assert_eq!(f("VOP3", "V_MAD_U32_U24").int_clamp, None);
    assert_eq!(f("VOP2", "V_ADD_F32_E32").int_clamp, None);

    assert_eq!(
        f("VOP3P", "V_WMMA_F16_16X16X16_F16").matrix_c,
        Some(ElemType::F16)
    );
    assert_eq!(
        f("VOP3P", "V_WMMA_I32_16X16X16_IU8").matrix_c,
        Some(ElemType::I32)
    );
    assert_eq!(f("VOP3P", "V_DOT2_F32_F16").matrix_c, None);
    assert_eq!((ElemType::Bf16.bits(), ElemType::F64.bits()), (16, 64));
    assert_eq!(ElemType::Bf16.format(), "FMT_NUM_BF16");

    assert!(f("SOPK", "S_GETREG_B32").getreg && !f("SOPK", "S_GETREG_B32").setreg);
    assert!(f("SOPK", "S_SETREG_B32").setreg && !f("SOPK", "S_SETREG_B32").getreg);

    let cdna3 = spec.db(Arch::Cdna3);
    let facts = Facts::of(cdna3);
    assert_eq!(
        fact(cdna3, &facts, "VOP3P", "V_MFMA_F64_16X16X4_F64").matrix_c,
        Some(ElemType::F64)
    );
    let smfmac = cdna3
        .instructions()
        .iter()
        .position(|i| i.name.starts_with("V_SMFMAC_"))
        .unwrap();
    assert_eq!(facts.all()[smfmac].matrix_c, None);

    // S_ROUND_MODE and S_DENORM_MODE set MODE[3:0] and MODE[7:4].
    let mut set_mode = 0;
    for (arch, db, facts) in arches() {
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            let want = match inst.name.as_str() {
                "S_ROUND_MODE" => 0,
                "S_DENORM_MODE" => 4,
                _ => continue,
            };
            set_mode += 1;
            assert_eq!(
                f.control,
                Control::Native(Native::SetMode { shift: want }),
                "{arch}"
            );
        }
    }
    assert!(
        set_mode >= 2,
        "{set_mode} S_ROUND_MODE/S_DENORM_MODE entries"
    );
}

/// The decoded encoding form of each line of `asm` assembled for `arch`, with its class name.
fn encodings(arch: Arch, asm: &str) -> Vec<(String, Encoding)> {
    let isa = amdpcode::isa::Isa::new(common::spec().get(arch).unwrap());
    let program = amdpcode::wave::Program::assemble(&isa, asm)
        .unwrap_or_else(|e| panic!("{arch}: {asm}: {e}"));
    program
        .insts()
        .iter()
        .map(|d| (d.inst.format.clone(), d.encoding))
        .collect()
}

#[test]
fn sdwa_and_dpp_forms_are_told_apart_from_their_base_encoding() {
    let rdna2 = encodings(
        Arch::Rdna2,
        "v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0\n\
         v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n\
         v_mov_b32_dpp v1, v2 dpp8:[1,0,3,2,5,4,7,6]\n\
         v_mov_b32 v1, v2\n\
         v_add_f32_e64 v1, v2, v3",
    );
    let want = [
        ("VOP1_SDWA", Encoding::Sdwa),
        ("VOP1_DPP16", Encoding::Dpp16),
        ("VOP1_DPP8", Encoding::Dpp8),
        ("VOP1", Encoding::Plain),
        ("VOP3", Encoding::Plain),
    ];
    let want: Vec<(String, Encoding)> = want.iter().map(|(f, e)| (f.to_string(), *e)).collect();
    assert_eq!(rdna2, want);
    let cdna4 = encodings(
        Arch::Cdna,
        "v_add_f32_sdwa v1, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD\n\
         v_add_f32_dpp v1, v2, v3 row_shl:1 row_mask:0xf bank_mask:0xf\n\
         v_cmp_eq_f32_sdwa vcc, v1, v2 src0_sel:WORD_1 src1_sel:DWORD",
    );
    let kinds: Vec<Encoding> = cdna4.iter().map(|(_, e)| *e).collect();
    assert_eq!(
        kinds,
        [Encoding::Sdwa, Encoding::Dpp16, Encoding::Sdwa],
        "{cdna4:?}"
    );
    // RDNA 3's 64-bit encodings take DPP words too (12 bytes).
    let rdna3 = encodings(
        Arch::Rdna3,
        "v_add_f32_e64_dpp v1, v2, v3 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf\n\
         v_add_f32_e64_dpp v1, v2, v3 dpp8:[7,6,5,4,3,2,1,0]",
    );
    let kinds: Vec<Encoding> = rdna3.iter().map(|(_, e)| *e).collect();
    assert_eq!(kinds, [Encoding::Dpp16, Encoding::Dpp8], "{rdna3:?}");
    assert!(Encoding::Dpp8.is_dpp() && Encoding::Dpp16.is_dpp());
    assert!(!Encoding::Sdwa.is_dpp() && !Encoding::Plain.is_dpp());
}

#[test]
fn vdst_is_a_vgpr_for_vector_results_and_not_for_masks_or_scalar_results() {
    let cases: &[(Arch, &str, &str, bool)] = &[
        (Arch::Rdna3, "VOP2", "V_ADD_F32_E32", true),
        (Arch::Rdna3, "VOP3SD", "V_DIV_SCALE_F32", true),
        (Arch::Rdna3, "VOP3", "V_CMP_EQ_F32_E64", false),
        (Arch::Rdna3, "VOP1", "V_READFIRSTLANE_B32_E32", false),
        (Arch::Rdna3, "SOP1", "S_MOV_B32", false),
        (Arch::Rdna2, "VOP1", "V_MOV_B32_E32", true),
        (Arch::Cdna, "VOP2", "V_ADD_F32_E32", true),
        (Arch::Cdna, "VOP3", "V_READLANE_B32", false),
        (Arch::Cdna, "VOP3P", "V_MFMA_F32_32X32X8_F16", true),
    ];
    let spec = common::spec();
    for &(arch, family, name, want) in cases {
        let db = spec.get(arch).unwrap();
        let facts = Facts::of(db);
        assert_eq!(
            fact(db, &facts, family, name).vdst_vgpr,
            want,
            "{arch} {family} {name}"
        );
    }
    // Agrees with the operand table's VGPR flag on every entry of every arch.
    for (arch, db, facts) in arches() {
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            let vdst = facts.operands(f.index).iter().find(|o| o.field == "vdst");
            assert_eq!(
                f.vdst_vgpr,
                vdst.is_some_and(|o| o.vgpr),
                "{arch} {}",
                inst.name
            );
        }
    }
}

#[test]
fn register_spaces_are_the_files_the_executed_text_addresses() {
    let spec = common::spec();
    let spaces = |arch: Arch, family: &str, name: &str| {
        let db = spec.get(arch).unwrap();
        let inst = db
            .instructions()
            .iter()
            .find(|i| i.name == name && i.encoding == family)
            .unwrap_or_else(|| panic!("{arch}: no {family} {name}"));
        let p = amdpcode::exec::prepare(arch, inst).unwrap();
        RegSpaces::of(&p.function)
    };
    let none = RegSpaces::default();
    let vgpr = RegSpaces { vgpr: true, ..none };
    let sgpr = RegSpaces { sgpr: true, ..none };
    let hwreg = RegSpaces {
        hwreg: true,
        ..none
    };
    assert_eq!(spaces(Arch::Rdna3, "VOP2", "V_ADD_F32_E32"), none);
    assert_eq!(spaces(Arch::Rdna3, "SOP1", "S_MOVRELS_B32"), sgpr);
    assert_eq!(spaces(Arch::Rdna3, "VOP1", "V_MOVRELS_B32_E32"), vgpr);
    assert_eq!(spaces(Arch::Rdna3, "SOPK", "S_GETREG_B32"), hwreg);
    assert_eq!(spaces(Arch::Cdna, "SOP1", "S_MOVRELS_B32"), sgpr);
    // The files each entry's printed IR spells, for every executable entry of three arches.
    for arch in [Arch::Rdna2, Arch::Rdna3, Arch::Cdna] {
        let db = spec.get(arch).unwrap();
        let mut seen = [0usize; 3];
        for inst in db.instructions() {
            let Ok(p) = amdpcode::exec::prepare(arch, inst) else {
                continue;
            };
            let text = amdpcode::ir::print_function(&p.function);
            let s = RegSpaces::of(&p.function);
            let want = RegSpaces {
                vgpr: text.contains("VGPR["),
                sgpr: text.contains("SGPR["),
                hwreg: text.contains("HW_REGISTERS["),
            };
            assert_eq!(s, want, "{arch} {}", inst.name);
            seen[0] += s.vgpr as usize;
            seen[1] += s.sgpr as usize;
            seen[2] += s.hwreg as usize;
        }
        assert!(seen.iter().all(|&n| n > 0), "{arch}: {seen:?}");
    }
}
