//! Decoder throughput: a large stream of valid random instructions per arch, decoded from
//! start to end. Run `cargo bench --bench asm`; criterion reports instructions per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

use amdpcode::isa::Isa;
use amdpcode::spec::{self, Arch};

/// A xorshift generator, so the stream is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// About `n` instructions: random words kept only when they decode.
fn stream(isa: &Isa, n: usize) -> (Vec<u8>, usize) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut bytes = Vec::new();
    let mut count = 0;
    let mut tries = 0;
    while count < n && tries < n * 200 {
        tries += 1;
        let mut word = [0u8; 12];
        for chunk in word.chunks_mut(4) {
            chunk.copy_from_slice(&rng.next().to_le_bytes());
        }
        if let Ok((_, len)) = isa.decode(&word) {
            bytes.extend_from_slice(&word[..len]);
            count += 1;
        }
    }
    (bytes, count)
}

fn bench_decode(c: &mut Criterion) {
    let Ok(wheel) = spec::find_wheel(&spec::Locate::default()) else {
        eprintln!("skipped: spec wheel not found");
        return;
    };
    let mut group = c.benchmark_group("decode");
    for arch in Arch::WHEEL {
        let Ok(isa) = Isa::from_wheel(&wheel, arch) else {
            continue;
        };
        let (bytes, count) = stream(&isa, 100_000);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(arch.name(), |b| {
            b.iter(|| {
                let mut pos = 0;
                let mut n = 0usize;
                while pos < bytes.len() {
                    match isa.decode(black_box(&bytes[pos..])) {
                        Ok((inst, len)) => {
                            n += inst.operands.len();
                            pos += len;
                        }
                        Err(_) => pos += 4,
                    }
                }
                n
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_decode
}
criterion_main!(benches);
