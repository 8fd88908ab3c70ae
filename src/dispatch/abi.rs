//! The initial state of each wave, as a command processor sets it up (LLVM AMDGPUUsage,
//! "Initial Kernel Execution State"): user SGPRs, then the system SGPRs that RSRC2 enables
//! (workgroup ids x/y/z, workgroup info, private segment wave offset) — or, on RDNA 4, the
//! workgroup ids in trap temporaries (ttmp9 = x, ttmp7 = y | z << 16) — the work-item ids
//! packed 10/10/10 in v0 (x, y, z in v0, v1, v2 on gfx908 and GFX10), EXEC for the wave's lanes and
//! MODE from RSRC1.

use crate::spec::{Arch, Wheel};
use crate::wave::{code, mode_from_rsrc1, WaveState};

/// COMPUTE_PGM_RSRC2 fields.
pub mod rsrc2 {
    /// The number of user SGPRs (bits 5:1).
    pub fn user_sgpr_count(r: u32) -> u32 {
        r >> 1 & 0x1f
    }
    /// ENABLE_PRIVATE_SEGMENT (the scratch wave offset SGPR).
    pub fn private_segment(r: u32) -> bool {
        r & 1 != 0
    }
    /// ENABLE_SGPR_WORKGROUP_ID_X/Y/Z.
    pub fn workgroup_id(r: u32, dim: usize) -> bool {
        r >> (7 + dim) & 1 != 0
    }
    /// ENABLE_SGPR_WORKGROUP_INFO.
    pub fn workgroup_info(r: u32) -> bool {
        r >> 10 & 1 != 0
    }
    /// ENABLE_VGPR_WORKITEM_ID: 0 = x, 1 = x and y, 2 = x, y and z.
    pub fn workitem_ids(r: u32) -> u32 {
        r >> 11 & 3
    }
    /// LDS_SIZE in bytes (granularity 512 bytes).
    pub fn lds_bytes(r: u32) -> u64 {
        (r >> 15 & 0x1ff) as u64 * 512
    }
}

/// Everything a wave's initial state depends on.
pub struct WaveSetup<'a> {
    /// The arch.
    pub arch: Arch,
    /// 32 or 64.
    pub wave_size: u32,
    /// COMPUTE_PGM_RSRC1.
    pub rsrc1: u32,
    /// COMPUTE_PGM_RSRC2.
    pub rsrc2: u32,
    /// The user SGPR values (s0, s1, ...).
    pub user_sgprs: &'a [u32],
    /// The entry point.
    pub entry: u64,
    /// The workgroup id.
    pub workgroup: [u32; 3],
    /// This workgroup's size (smaller than the launch's block in partial workgroups).
    pub size: [u32; 3],
    /// The wave's index in its workgroup.
    pub wave_index: u32,
    /// The number of waves in the workgroup.
    pub n_waves: u32,
}

/// The scalar codes [`initial_wave`] sets (user SGPRs, then the system SGPRs RSRC2 enables;
/// on RDNA 4 the trap temporaries holding the workgroup ids), besides EXEC: what a checker of
/// uninitialised values counts as written at the start.
pub fn initial_sgpr_codes(arch: Arch, rsrc2: u32, n_user_sgprs: usize) -> Vec<u32> {
    let user = (rsrc2::user_sgpr_count(rsrc2) as usize).max(n_user_sgprs) as u32;
    let mut codes: Vec<u32> = (0..user).collect();
    if arch.wheel() == Wheel::Rdna4 {
        codes.extend([code::TTMP0 + 7, code::TTMP0 + 9]);
        return codes;
    }
    let mut next = rsrc2::user_sgpr_count(rsrc2);
    for dim in 0..3 {
        if rsrc2::workgroup_id(rsrc2, dim) {
            codes.push(next);
            next += 1;
        }
    }
    if rsrc2::workgroup_info(rsrc2) {
        codes.push(next);
        next += 1;
    }
    if rsrc2::private_segment(rsrc2) {
        codes.push(next);
    }
    codes
}

/// A wave's initial state.
pub fn initial_wave(s: &WaveSetup<'_>) -> WaveState {
    let mut w = WaveState::new(s.arch, s.wave_size);
    init_wave(s, &mut w);
    w
}

/// Sets up `w`, a state as `WaveState::new(s.arch, s.wave_size)` makes it, as
/// [`initial_wave`] does.
pub fn init_wave(s: &WaveSetup<'_>, w: &mut WaveState) {
    for (i, &v) in s.user_sgprs.iter().enumerate() {
        w.write_sgpr(i as u32, v);
    }
    if s.arch.wheel() == Wheel::Rdna4 {
        // RDNA 4 delivers workgroup ids in trap temporaries, not SGPRs.
        w.write_sgpr(code::TTMP0 + 9, s.workgroup[0]);
        w.write_sgpr(
            code::TTMP0 + 7,
            (s.workgroup[1] & 0xffff) | (s.workgroup[2] & 0xffff) << 16,
        );
    } else {
        let mut next = rsrc2::user_sgpr_count(s.rsrc2);
        for dim in 0..3 {
            if rsrc2::workgroup_id(s.rsrc2, dim) {
                w.write_sgpr(next, s.workgroup[dim]);
                next += 1;
            }
        }
        if rsrc2::workgroup_info(s.rsrc2) {
            // first_wave (bit 31) and the number of waves in the workgroup (bits 5:0).
            let first = (s.wave_index == 0) as u32;
            w.write_sgpr(next, first << 31 | (s.n_waves & 0x3f));
            next += 1;
        }
        if rsrc2::private_segment(s.rsrc2) {
            // Scratch is per lane in this model: the wave's byte offset is 0.
            w.write_sgpr(next, 0);
        }
    }
    let ids = rsrc2::workitem_ids(s.rsrc2);
    let [lx, ly, _] = s.size;
    let threads = s.size.iter().product::<u32>();
    let first = s.wave_index * s.wave_size;
    let lanes = threads.saturating_sub(first).min(s.wave_size);
    let row = &mut w.vgpr[..];
    if lanes > 0 && first % lx + lanes <= lx && row.len() >= lanes as usize {
        // The wave's lanes lie in one row of x (every 1-D workgroup of whole waves): y and z
        // are the same for all, x counts up.
        let (x, y, z) = (first % lx, first / lx % ly, first / (lx * ly));
        let hi = if ids >= 1 { y << 10 } else { 0 } | if ids >= 2 { z << 20 } else { 0 };
        for (slot, lane) in row[..lanes as usize].iter_mut().zip(0u32..) {
            *slot = (x + lane) | hi;
        }
    } else if lanes > 0 {
        // The first lane's ids by division, then counting (x fastest).
        let (mut x, mut y, mut z) = (first % lx, first / lx % ly, first / (lx * ly));
        for lane in 0..lanes {
            let mut v = x;
            if ids >= 1 {
                v |= y << 10;
            }
            if ids >= 2 {
                v |= z << 20;
            }
            w.set_vgpr(lane, 0, v);
            x += 1;
            if x == lx {
                x = 0;
                y += 1;
                if y == ly {
                    y = 0;
                    z += 1;
                }
            }
        }
    }
    if !packs_workitem_ids(s.arch) && ids >= 1 {
        // gfx908 and GFX10 take the y and z ids in v1 and v2 (LLVM AMDGPUUsage: the ids are
        // packed in v0 from gfx90a and GFX11 on).
        for lane in 0..lanes {
            let v = w.vgpr(lane, 0);
            w.set_vgpr(lane, 0, v & 0x3ff);
            w.set_vgpr(lane, 1, v >> 10 & 0x3ff);
            if ids >= 2 {
                w.set_vgpr(lane, 2, v >> 20 & 0x3ff);
            }
        }
    }
    w.set_exec(if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    });
    w.mode = mode_from_rsrc1(s.arch, s.rsrc1);
    w.pc = s.entry;
}

/// The VGPRs the loader writes for the waves of a kernel (v0, and v1/v2 where `arch` takes
/// the y and z work-item ids there): 1 to 3.
pub fn initial_vgprs(arch: Arch, rsrc2: u32) -> u32 {
    if packs_workitem_ids(arch) {
        1
    } else {
        1 + rsrc2::workitem_ids(rsrc2).min(2)
    }
}

/// Whether `arch` receives its work-item ids packed 10/10/10 in v0 (gfx90a and later GFX9,
/// GFX11 and later), rather than x, y and z in v0, v1 and v2 (gfx908, GFX10).
fn packs_workitem_ids(arch: Arch) -> bool {
    !matches!(arch, Arch::Cdna1 | Arch::Rdna1 | Arch::Rdna2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_of_llvm_default_descriptor() {
        // LLVM's defaults: FLOAT_DENORM_MODE_16_64 = 3 (bits 19:18), DX10 clamp, IEEE.
        let rsrc1 = 0xc0 << 12 | 1 << 21 | 1 << 23;
        assert_eq!(mode_from_rsrc1(Arch::Rdna3, rsrc1), 0x3c0);
        // RDNA 4 has no IEEE mode; its DX10 clamp is always on.
        assert_eq!(mode_from_rsrc1(Arch::Rdna4, rsrc1), 0x1c0);
    }

    #[test]
    fn partial_wave_ids_and_exec() {
        let users = [0x1000, 0x7f];
        let s = WaveSetup {
            arch: Arch::Rdna3,
            wave_size: 32,
            rsrc1: 0,
            // 2 user SGPRs, workgroup ids x and z, work-item ids x and y.
            rsrc2: 2 << 1 | 1 << 7 | 1 << 9 | 1 << 11,
            user_sgprs: &users,
            entry: 0x40,
            workgroup: [3, 4, 5],
            size: [5, 9, 1],
            wave_index: 1,
            n_waves: 2,
        };
        let w = initial_wave(&s);
        assert_eq!(
            (w.sgpr[0], w.sgpr[1], w.sgpr[2], w.sgpr[3]),
            (0x1000, 0x7f, 3, 5)
        );
        // 45 work-items: the second wave has 13 lanes, starting at thread 32 = (2, 6).
        assert_eq!(w.exec(), (1 << 13) - 1);
        assert_eq!(w.vgpr(0, 0), 2 | 6 << 10);
        assert_eq!(w.vgpr(12, 0), 4 | 8 << 10);
        assert_eq!(w.vgpr(13, 0), 0);
        assert_eq!(w.pc, 0x40);
    }

    /// gfx908 (like GFX10) takes work-item ids y and z in v1 and v2; gfx90a packs them in v0.
    /// With them packed on gfx908, the 16 x 16 workgroups of the kernel suite's `transpose`
    /// and `matmul_tiled` at -O2 (which read y from v1) wrote wrong values, and lane 16 took
    /// x = 1024 from v0 and wrote LDS out of range.
    #[test]
    fn gfx908_takes_workitem_ids_in_three_vgprs() {
        for arch in [Arch::Cdna1, Arch::Cdna2] {
            let s = WaveSetup {
                arch,
                wave_size: 64,
                rsrc1: 0,
                // No user SGPRs, work-item ids x, y and z.
                rsrc2: 2 << 11,
                user_sgprs: &[],
                entry: 0,
                workgroup: [0, 0, 0],
                size: [16, 16, 1],
                wave_index: 1,
                n_waves: 4,
            };
            let w = initial_wave(&s);
            // The second wave's lane 16 is thread 80 = (0, 5).
            let ids = |lane| [0, 1, 2].map(|r| w.vgpr(lane, r));
            match arch {
                Arch::Cdna1 => assert_eq!(ids(16), [0, 5, 0]),
                _ => assert_eq!(ids(16), [5 << 10, 0, 0]),
            }
        }
    }

    #[test]
    fn rdna4_workgroup_ids_in_ttmps() {
        let s = WaveSetup {
            arch: Arch::Rdna4,
            wave_size: 32,
            rsrc1: 0,
            rsrc2: 2 << 1 | 1 << 7,
            user_sgprs: &[1, 2],
            entry: 0,
            workgroup: [7, 8, 9],
            size: [32, 1, 1],
            wave_index: 0,
            n_waves: 1,
        };
        let w = initial_wave(&s);
        assert_eq!(w.read_sgpr(code::TTMP0 + 9), 7);
        assert_eq!(w.read_sgpr(code::TTMP0 + 7), 8 | 9 << 16);
        assert_eq!(w.sgpr[2], 0);
    }
}
