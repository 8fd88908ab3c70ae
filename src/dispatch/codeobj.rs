//! AMDGPU HSA code objects (ELF64, code object v4/v5/v6): the loadable image, the kernels by
//! their `.kd` symbols, each kernel's 64-byte descriptor and its `amdhsa.kernels` metadata
//! (MessagePack in the `NT_AMDGPU_METADATA` note).
//!
//! The ELF structure is read with the `object` crate and the metadata with `rmpv`; this
//! module only interprets what they return, and every malformed input is a
//! [`DispatchError::CodeObject`] naming what is wrong, never a panic.

use object::elf;
use object::read::elf::{ElfFile64, FileHeader, ProgramHeader};
use object::{Endianness, Object, ObjectSymbol};

use super::DispatchError;
use crate::spec::Arch;

/// The 64-byte kernel descriptor (LLVM AMDGPUUsage, "Kernel Descriptor").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// GROUP_SEGMENT_FIXED_SIZE: LDS bytes.
    pub group_segment_fixed_size: u32,
    /// PRIVATE_SEGMENT_FIXED_SIZE: scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// KERNARG_SIZE.
    pub kernarg_size: u32,
    /// KERNEL_CODE_ENTRY_BYTE_OFFSET, from the descriptor's address.
    pub entry_offset: i64,
    /// COMPUTE_PGM_RSRC3.
    pub rsrc3: u32,
    /// COMPUTE_PGM_RSRC1.
    pub rsrc1: u32,
    /// COMPUTE_PGM_RSRC2.
    pub rsrc2: u32,
    /// The kernel_code_properties bits (user SGPR enables, wave32, dynamic stack).
    pub code_properties: u16,
    /// KERNARG_PRELOAD: bits 6:0 the preloaded length in dwords, 15:7 the offset.
    pub kernarg_preload: u16,
}

/// kernel_code_properties bits.
pub mod props {
    /// ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER (4 SGPRs).
    pub const PRIVATE_SEGMENT_BUFFER: u16 = 1 << 0;
    /// ENABLE_SGPR_DISPATCH_PTR (2 SGPRs).
    pub const DISPATCH_PTR: u16 = 1 << 1;
    /// ENABLE_SGPR_QUEUE_PTR (2 SGPRs).
    pub const QUEUE_PTR: u16 = 1 << 2;
    /// ENABLE_SGPR_KERNARG_SEGMENT_PTR (2 SGPRs).
    pub const KERNARG_SEGMENT_PTR: u16 = 1 << 3;
    /// ENABLE_SGPR_DISPATCH_ID (2 SGPRs).
    pub const DISPATCH_ID: u16 = 1 << 4;
    /// ENABLE_SGPR_FLAT_SCRATCH_INIT (2 SGPRs).
    pub const FLAT_SCRATCH_INIT: u16 = 1 << 5;
    /// ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (1 SGPR).
    pub const PRIVATE_SEGMENT_SIZE: u16 = 1 << 6;
    /// ENABLE_WAVEFRONT_SIZE32.
    pub const WAVEFRONT_SIZE32: u16 = 1 << 10;
    /// USES_DYNAMIC_STACK.
    pub const USES_DYNAMIC_STACK: u16 = 1 << 11;
}

impl KernelDescriptor {
    /// Reads a descriptor from its 64 bytes.
    ///
    /// # Errors
    /// [`DispatchError::CodeObject`] when fewer than 64 bytes are given.
    pub fn parse(bytes: &[u8]) -> Result<KernelDescriptor, DispatchError> {
        if bytes.len() < 64 {
            return Err(DispatchError::CodeObject(format!(
                "kernel descriptor truncated: {} of 64 bytes",
                bytes.len()
            )));
        }
        let u32_at =
            |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
        let mut entry = [0u8; 8];
        entry.copy_from_slice(&bytes[16..24]);
        Ok(KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            entry_offset: i64::from_le_bytes(entry),
            rsrc3: u32_at(44),
            rsrc1: u32_at(48),
            rsrc2: u32_at(52),
            code_properties: u16_at(56),
            kernarg_preload: u16_at(58),
        })
    }
}

/// One kernel argument of the metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    /// `.name`, when given.
    pub name: Option<String>,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.size` in bytes.
    pub size: u32,
    /// `.value_kind` (`global_buffer`, `by_value`, `hidden_block_count_x`, ...).
    pub kind: String,
}

/// One kernel of a code object.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The kernel's name (its `.kd` symbol without the suffix).
    pub name: String,
    /// The descriptor.
    pub descriptor: KernelDescriptor,
    /// The descriptor's address in the image.
    pub descriptor_addr: u64,
    /// The entry point's address in the image.
    pub entry: u64,
    /// The arguments, from the metadata (empty when the note does not describe the kernel).
    pub args: Vec<KernelArg>,
    /// `.kernarg_segment_size` of the metadata, else the descriptor's.
    pub kernarg_size: u32,
    /// The wave size: 32 when the descriptor enables wave32 (RDNA), else 64.
    pub wave_size: u32,
}

/// A loaded code object.
#[derive(Clone, Debug)]
pub struct CodeObject {
    /// The arch of the ELF header's machine flags.
    pub arch: Arch,
    /// The processor name (`gfx1100`, ...).
    pub processor: &'static str,
    /// The loadable image: every `PT_LOAD` segment at its virtual address from 0 (bytes past
    /// a segment's file size are zero).
    pub image: Vec<u8>,
    /// The executable segments `(vaddr, size)`.
    pub code: Vec<(u64, u64)>,
    /// The kernels.
    pub kernels: Vec<KernelInfo>,
}

/// The arch and processor name of an `EF_AMDGPU_MACH` value.
pub fn arch_of_mach(mach: u32) -> Option<(Arch, &'static str)> {
    Some(match mach {
        0x041 => (Arch::Rdna3, "gfx1100"),
        0x046 => (Arch::Rdna3, "gfx1101"),
        0x047 => (Arch::Rdna3, "gfx1102"),
        0x044 => (Arch::Rdna3, "gfx1103"),
        0x043 => (Arch::Rdna3, "gfx1150"),
        0x04a => (Arch::Rdna3, "gfx1151"),
        0x055 => (Arch::Rdna3, "gfx1152"),
        0x058 => (Arch::Rdna3, "gfx1153"),
        0x054 => (Arch::Rdna3, "gfx11-generic"),
        0x048 => (Arch::Rdna4, "gfx1200"),
        0x04e => (Arch::Rdna4, "gfx1201"),
        0x059 => (Arch::Rdna4, "gfx12-generic"),
        0x033 => (Arch::Rdna1, "gfx1010"),
        0x034 => (Arch::Rdna1, "gfx1011"),
        0x035 => (Arch::Rdna1, "gfx1012"),
        0x042 => (Arch::Rdna1, "gfx1013"),
        0x052 => (Arch::Rdna1, "gfx10-1-generic"),
        0x036 => (Arch::Rdna2, "gfx1030"),
        0x037 => (Arch::Rdna2, "gfx1031"),
        0x038 => (Arch::Rdna2, "gfx1032"),
        0x039 => (Arch::Rdna2, "gfx1033"),
        0x03e => (Arch::Rdna2, "gfx1034"),
        0x03d => (Arch::Rdna2, "gfx1035"),
        0x045 => (Arch::Rdna2, "gfx1036"),
        0x053 => (Arch::Rdna2, "gfx10-3-generic"),
        0x030 => (Arch::Cdna1, "gfx908"),
        0x03f => (Arch::Cdna2, "gfx90a"),
        0x04c => (Arch::Cdna3, "gfx942"),
        0x05f => (Arch::Cdna3, "gfx9-4-generic"),
        0x04f => (Arch::Cdna, "gfx950"),
        0x049 => (Arch::Cdna5, "gfx1250"),
        0x05a => (Arch::Cdna5, "gfx1251"),
        _ => return None,
    })
}

/// The largest image this loader maps (a code object larger than this is refused).
const MAX_IMAGE: u64 = 1 << 30;

impl CodeObject {
    /// Parses a code object.
    ///
    /// # Errors
    /// [`DispatchError::CodeObject`] for anything malformed: not ELF64, not AMDGPU, an
    /// unknown processor, segments or symbols outside the file, a bad metadata note.
    pub fn parse(bytes: &[u8]) -> Result<CodeObject, DispatchError> {
        let bad = |m: String| DispatchError::CodeObject(m);
        let file = ElfFile64::<Endianness>::parse(bytes)
            .map_err(|e| bad(format!("not an ELF64 code object: {e}")))?;
        let header = file.elf_header();
        let endian = file.endian();
        if header.e_machine(endian) != elf::EM_AMDGPU {
            return Err(bad(format!(
                "ELF machine {} is not AMDGPU ({})",
                header.e_machine(endian),
                elf::EM_AMDGPU
            )));
        }
        let flags = header.e_flags(endian);
        let mach = flags & 0xff;
        let (arch, processor) = arch_of_mach(mach).ok_or_else(|| {
            bad(format!(
                "processor 0x{mach:03x} (e_flags 0x{flags:x}) is not supported: \
                 amdpcode runs gfx11 (rdna3), gfx12 (rdna4) and gfx950 (cdna)"
            ))
        })?;
        // The image: every PT_LOAD segment at its address.
        let segments = header
            .program_headers(endian, bytes)
            .map_err(|e| bad(format!("bad program headers: {e}")))?;
        let mut end = 0u64;
        for ph in segments {
            if ph.p_type(endian) == elf::PT_LOAD {
                let seg_end = ph
                    .p_vaddr(endian)
                    .checked_add(ph.p_memsz(endian))
                    .filter(|&e| e <= MAX_IMAGE)
                    .ok_or_else(|| bad("a loadable segment lies beyond 1 GiB".into()))?;
                end = end.max(seg_end);
            }
        }
        if end == 0 {
            return Err(bad("no loadable segment".into()));
        }
        let mut image = vec![0u8; end as usize];
        let mut code = Vec::new();
        for ph in segments {
            if ph.p_type(endian) != elf::PT_LOAD {
                continue;
            }
            let data = ph
                .data(endian, bytes)
                .map_err(|_| bad("a loadable segment lies outside the file".into()))?;
            let at = ph.p_vaddr(endian) as usize;
            let n = data.len().min(ph.p_memsz(endian) as usize);
            image[at..at + n].copy_from_slice(&data[..n]);
            if ph.p_flags(endian) & elf::PF_X != 0 {
                code.push((ph.p_vaddr(endian), ph.p_memsz(endian)));
            }
        }
        if code.is_empty() {
            return Err(bad("no executable segment".into()));
        }
        let metadata = read_metadata(&file, bytes)?;
        let mut kernels = Vec::new();
        for sym in file.dynamic_symbols().chain(file.symbols()) {
            let Ok(name) = sym.name() else { continue };
            let Some(kname) = name.strip_suffix(".kd") else {
                continue;
            };
            if kernels.iter().any(|k: &KernelInfo| k.name == kname) {
                continue;
            }
            let addr = sym.address();
            let kd_bytes = addr
                .checked_add(64)
                .filter(|&e| e <= image.len() as u64)
                .map(|e| &image[addr as usize..e as usize])
                .ok_or_else(|| {
                    bad(format!(
                        "kernel {kname}: descriptor at 0x{addr:x} lies outside the image"
                    ))
                })?;
            let descriptor = KernelDescriptor::parse(kd_bytes)?;
            let entry = addr.wrapping_add(descriptor.entry_offset as u64);
            if !code.iter().any(|&(s, n)| s <= entry && entry < s + n) {
                return Err(bad(format!(
                    "kernel {kname}: entry 0x{entry:x} is not in an executable segment"
                )));
            }
            let meta = metadata
                .iter()
                .find(|m| m.symbol == name || m.name == kname);
            let wave_size = if arch.supports_wave(32)
                && descriptor.code_properties & props::WAVEFRONT_SIZE32 != 0
            {
                32
            } else {
                64
            };
            kernels.push(KernelInfo {
                name: kname.to_string(),
                descriptor,
                descriptor_addr: addr,
                entry,
                args: meta.map(|m| m.args.clone()).unwrap_or_default(),
                kernarg_size: meta
                    .and_then(|m| m.kernarg_size)
                    .unwrap_or(descriptor.kernarg_size),
                wave_size,
            });
        }
        if kernels.is_empty() {
            return Err(bad("no kernel (.kd symbol) in the code object".into()));
        }
        Ok(CodeObject {
            arch,
            processor,
            image,
            code,
            kernels,
        })
    }

    /// The kernel named `name`.
    ///
    /// # Errors
    /// [`DispatchError::NoKernel`] listing the kernels there are.
    pub fn kernel(&self, name: &str) -> Result<&KernelInfo, DispatchError> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| DispatchError::NoKernel {
                name: name.to_string(),
                available: self.kernels.iter().map(|k| k.name.clone()).collect(),
            })
    }
}

/// The metadata of one kernel.
struct Metadata {
    name: String,
    symbol: String,
    kernarg_size: Option<u32>,
    args: Vec<KernelArg>,
}

/// Reads the `amdhsa.kernels` list of the `NT_AMDGPU_METADATA` note, if there is one.
fn read_metadata(
    file: &ElfFile64<'_, Endianness>,
    bytes: &[u8],
) -> Result<Vec<Metadata>, DispatchError> {
    let bad = |m: String| DispatchError::CodeObject(format!("metadata note: {m}"));
    let endian = file.endian();
    let header = file.elf_header();
    let Ok(segments) = header.program_headers(endian, bytes) else {
        return Ok(Vec::new());
    };
    for ph in segments {
        let Ok(Some(mut notes)) = ph.notes(endian, bytes) else {
            continue;
        };
        while let Ok(Some(note)) = notes.next() {
            if note.name() != b"AMDGPU" || note.n_type(endian) != 32 {
                continue;
            }
            let mut desc = note.desc();
            let value = rmpv::decode::read_value(&mut desc)
                .map_err(|e| bad(format!("not MessagePack: {e}")))?;
            return parse_kernels(&value).map_err(bad);
        }
    }
    Ok(Vec::new())
}

fn map_get<'a>(v: &'a rmpv::Value, key: &str) -> Option<&'a rmpv::Value> {
    v.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn parse_kernels(root: &rmpv::Value) -> Result<Vec<Metadata>, String> {
    let Some(list) = map_get(root, "amdhsa.kernels") else {
        return Ok(Vec::new());
    };
    let list = list.as_array().ok_or("amdhsa.kernels is not a list")?;
    let mut out = Vec::new();
    for k in list {
        let text = |key: &str| map_get(k, key).and_then(|v| v.as_str()).map(str::to_string);
        let name = text(".name").ok_or("a kernel without .name")?;
        let symbol = text(".symbol").unwrap_or_else(|| format!("{name}.kd"));
        let num = |v: &rmpv::Value, key: &str| -> Result<Option<u32>, String> {
            match map_get(v, key) {
                None => Ok(None),
                Some(x) => x
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .map(Some)
                    .ok_or(format!("kernel {name}: {key} is not a 32-bit number")),
            }
        };
        let mut args = Vec::new();
        if let Some(a) = map_get(k, ".args") {
            for arg in a
                .as_array()
                .ok_or(format!("kernel {name}: .args is not a list"))?
            {
                args.push(KernelArg {
                    name: map_get(arg, ".name")
                        .and_then(|v| v.as_str())
                        .map(str::to_string),
                    offset: num(arg, ".offset")?
                        .ok_or(format!("kernel {name}: argument without .offset"))?,
                    size: num(arg, ".size")?
                        .ok_or(format!("kernel {name}: argument without .size"))?,
                    kind: map_get(arg, ".value_kind")
                        .and_then(|v| v.as_str())
                        .unwrap_or("by_value")
                        .to_string(),
                });
            }
        }
        out.push(Metadata {
            kernarg_size: num(k, ".kernarg_segment_size")?,
            name,
            symbol,
            args,
        });
    }
    Ok(out)
}
