//! DPP lane selection: which lane each lane's `src0` comes from, and which lanes a DPP16
//! instruction writes at all.
//!
//! A DPP16 control (`quad_perm`, `row_shl`/`row_shr`/`row_ror`, mirrors, `row_share`/
//! `row_xmask`) picks a source lane per lane; `row_mask` and `bank_mask` (bits 31:28 and 27:24
//! of the extension dword) switch whole rows of 16 lanes and banks of 4 lanes (of every row)
//! off. A switched-off lane behaves as a lane whose EXEC bit is clear for this one
//! instruction: its destination keeps its old value and its bit of a VCC/carry lane mask is not
//! set. A lane whose source lane is out of its row or inactive reads 0 with `bound_ctrl:1`
//! (bit 19); without it the lane is not written either. `fi` (fetch inactive, bit 18) lets a
//! lane read an inactive source lane. DPP8 (`src0` 233, or 234 with `fi`) selects within
//! groups of eight lanes and has no masks.
//!
//! GFX9 (CDNA) also has the whole-wave controls `wave_shl`/`wave_rol`/`wave_shr`/`wave_ror`
//! (by one lane) and `row_bcast:15` (each row reads lane 15 of the row before it) and
//! `row_bcast:31` (rows 2 and 3 read lane 31), as the Vega and CDNA 3 ISA manuals' DPP_CTRL
//! tables define them; row 0 (and, for `row_bcast:31`, row 1) has no source there. RDNA drops
//! them (LLVM rejects the text from GFX10 on), but RDNA 3 hardware still executes 0x142/0x143:
//! tinygrad's hardware-validated `test_dpp.py::TestVOPCDPP16::test_row_bcast15_materializes_vcc`
//! records every lane reading the first lane of its own row, which is what this model does for
//! both on RDNA.

/// The `src0` codes of the DPP forms.
const DPP8: u32 = 233;
const DPP8_FI: u32 = 234;
pub(super) const DPP16: u32 = 250;

/// The lane a DPP16/DPP8 control reads for `lane`, or `None` when the control reads nothing
/// there (shifted out of the row, or a reserved control).
pub(super) fn select(ext: (u32, u32), lane: u32, wave_size: u32, gfx9: bool) -> Option<u32> {
    let (kind, w) = ext;
    if kind == DPP8 || kind == DPP8_FI {
        let sel = (w >> (8 + 3 * (lane % 8))) & 7;
        return Some(lane / 8 * 8 + sel);
    }
    let ctrl = (w >> 8) & 0x1ff;
    let row = lane / 16 * 16;
    let i = lane % 16;
    let src = match ctrl {
        // quad_perm: each lane of a quad picks a lane of the same quad.
        0x000..=0x0ff => lane / 4 * 4 + ((ctrl >> (2 * (lane % 4))) & 3),
        // row_shl:n / row_shr:n (lanes shifted out of the row read nothing).
        0x101..=0x10f => {
            let n = ctrl & 0xf;
            if i + n < 16 {
                lane + n
            } else {
                return None;
            }
        }
        0x111..=0x11f => {
            let n = ctrl & 0xf;
            if i >= n {
                lane - n
            } else {
                return None;
            }
        }
        // row_ror:n.
        0x121..=0x12f => row + (i + 16 - (ctrl & 0xf)) % 16,
        // row_mirror, row_half_mirror.
        0x140 => row + 15 - i,
        0x141 => row + (i / 8 * 8) + 7 - (i % 8),
        // row_share:n, row_xmask:n (RDNA).
        0x150..=0x15f => row + (ctrl & 0xf),
        0x160..=0x16f => row + (i ^ (ctrl & 0xf)),
        // GFX9 whole-wave shifts and rotates by one lane.
        0x130 if gfx9 => lane + 1,
        0x134 if gfx9 => (lane + 1) % wave_size,
        0x138 if gfx9 => lane.checked_sub(1)?,
        0x13c if gfx9 => (lane + wave_size - 1) % wave_size,
        // row_bcast:15 / row_bcast:31 (see the module comment for RDNA).
        0x142 if gfx9 => row.checked_sub(1)?,
        0x143 if gfx9 && lane >= 32 => 31,
        0x142 | 0x143 if !gfx9 => row,
        _ => return None,
    };
    (src < wave_size).then_some(src)
}

/// Whether a DPP16 source is usable for `lane`: `Some(l)` reads lane `l`, `None` has no valid
/// source (out of the row, or an inactive lane without `fi`).
pub(crate) fn source_lane(
    ext: (u32, u32),
    lane: u32,
    wave_size: u32,
    exec: u64,
    gfx9: bool,
) -> Option<u32> {
    let l = select(ext, lane, wave_size, gfx9)?;
    let (kind, w) = ext;
    let fetch_inactive = match kind {
        DPP16 => w >> 18 & 1 == 1,
        DPP8_FI => true,
        _ => false,
    };
    // DPP8 reads within its group whatever the source lane's EXEC bit (its `fi` only
    // matters for lanes the hardware would otherwise zero, which this model does not track).
    if kind == DPP16 && !fetch_inactive && exec >> l & 1 == 0 {
        return None;
    }
    Some(l)
}

/// Whether an invalid DPP16 source reads as 0 (`bound_ctrl:1`) rather than disabling the lane.
pub(super) fn bound_ctrl(ext: (u32, u32)) -> bool {
    ext.0 == DPP16 && ext.1 >> 19 & 1 == 1
}

/// The lanes a DPP16 instruction writes, given EXEC at issue: `row_mask` and `bank_mask`
/// switch rows and banks off, and without `bound_ctrl` a lane with no valid source is off too.
/// `None` for non-DPP16 extensions (DPP8, SDWA), which write every active lane.
pub(super) fn write_mask(ext: (u32, u32), wave_size: u32, exec: u64, gfx9: bool) -> Option<u64> {
    if ext.0 != DPP16 {
        return None;
    }
    let w = ext.1;
    let (row_mask, bank_mask) = (w >> 28 & 0xf, w >> 24 & 0xf);
    let bc = bound_ctrl(ext);
    let mut mask = 0u64;
    for lane in 0..wave_size.min(64) {
        let row_on = row_mask >> (lane / 16) & 1 == 1;
        let bank_on = bank_mask >> (lane % 16 / 4) & 1 == 1;
        let src_ok = bc || source_lane(ext, lane, wave_size, exec, gfx9).is_some();
        if row_on && bank_on && src_ok {
            mask |= 1 << lane;
        }
    }
    Some(mask & exec)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DPP16 extension dword: control, row/bank masks, bound_ctrl.
    fn dpp16(ctrl: u32, row: u32, bank: u32, bc: bool) -> (u32, u32) {
        (
            DPP16,
            1 | ctrl << 8 | (bc as u32) << 19 | bank << 24 | row << 28,
        )
    }

    #[test]
    fn row_and_bank_masks_switch_lanes_off() {
        let all = u64::MAX;
        // Rows 0 and 2 of wave64 on, every bank.
        let m = write_mask(dpp16(0xe4, 0b0101, 0xf, false), 64, all, false).unwrap();
        assert_eq!(m, 0x0000_ffff_0000_ffff);
        // Bank 1 (lanes 4..7 of each row) off.
        let m = write_mask(
            dpp16(0xe4, 0xf, 0b1101, false),
            32,
            all & 0xffff_ffff,
            false,
        )
        .unwrap();
        assert_eq!(m, 0xff0f_ff0f);
        // row_shl:1 without bound_ctrl: lane 15 of each row has no source.
        let m = write_mask(dpp16(0x101, 0xf, 0xf, false), 32, 0xffff_ffff, false).unwrap();
        assert_eq!(m, 0x7fff_7fff);
        let m = write_mask(dpp16(0x101, 0xf, 0xf, true), 32, 0xffff_ffff, false).unwrap();
        assert_eq!(m, 0xffff_ffff);
        // An inactive source lane (lane 1) without fi disables lane 0 under row_shl:1.
        let m = write_mask(dpp16(0x101, 0xf, 0xf, false), 32, 0xffff_fffd, false).unwrap();
        assert_eq!(m, 0x7fff_7ffc);
        assert_eq!(write_mask((DPP8, 0), 32, 0xffff_ffff, false), None);
    }

    #[test]
    fn gfx9_wave_shifts_and_row_broadcasts() {
        let sel = |ctrl, lane, gfx9| select(dpp16(ctrl, 0xf, 0xf, false), lane, 64, gfx9);
        assert_eq!(sel(0x130, 5, true), Some(6), "wave_shl:1");
        assert_eq!(sel(0x130, 63, true), None);
        assert_eq!(sel(0x134, 63, true), Some(0), "wave_rol:1");
        assert_eq!(sel(0x138, 0, true), None, "wave_shr:1");
        assert_eq!(sel(0x138, 17, true), Some(16));
        assert_eq!(sel(0x13c, 0, true), Some(63), "wave_ror:1");
        assert_eq!(sel(0x142, 20, true), Some(15), "row_bcast:15");
        assert_eq!(sel(0x142, 47, true), Some(31));
        assert_eq!(sel(0x142, 3, true), None);
        assert_eq!(sel(0x143, 40, true), Some(31), "row_bcast:31");
        assert_eq!(sel(0x143, 20, true), None);
        // RDNA: the first lane of the lane's own row; the wave controls stay reserved.
        assert_eq!(sel(0x142, 20, false), Some(16));
        assert_eq!(sel(0x143, 47, false), Some(32));
        assert_eq!(sel(0x130, 5, false), None);
        // With row_mask 0xa (rows 1 and 3) row_bcast:15 writes every lane of those rows.
        let m = write_mask(dpp16(0x142, 0xa, 0xf, false), 64, u64::MAX, true).unwrap();
        assert_eq!(m, 0xffff_0000_ffff_0000);
    }
}
