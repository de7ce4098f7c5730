//! The model's CPU per text, as the server runs it: one text at a time on one thread,
//! tokenizing included, over a JSON list of texts; and this core's int8 peak, to say what
//! fraction of it the model reaches. `scripts/bench-model` runs it beside ONNX Runtime on the
//! same texts.
//!
//!     cargo bench --bench model -- texts MODEL_DIR TEXTS_JSON passage|query int8|f32
//!     cargo bench --bench model -- peak
//!
//! Prints one line of JSON.

use std::hint::black_box;
use std::path::Path;

use kioku::embedding::{Model, Precision};

fn main() {
    // As the server does (src/main.rs): candle's products on this one thread.
    // SAFETY: no other thread exists yet.
    unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["texts", model, texts, kind, precision] => texts_cost(model, texts, kind, precision),
        ["peak"] => peak(),
        _ => {
            eprintln!(
                "usage: model texts MODEL_DIR TEXTS_JSON passage|query int8|f32 | model peak"
            );
            std::process::exit(2);
        }
    }
}

fn texts_cost(model: &str, texts: &str, kind: &str, precision: &str) {
    let precision = match precision {
        "int8" => Precision::Int8,
        "f32" => Precision::F32,
        other => panic!("precision {other}: int8 or f32"),
    };
    let model = Model::load_as(Path::new(model), precision).expect("the model loads");
    let texts: Vec<String> =
        serde_json::from_slice(&std::fs::read(texts).expect("the texts file reads"))
            .expect("the texts file is a JSON list of strings");
    assert!(
        !texts.is_empty(),
        "the texts file lists no texts: nothing to time"
    );
    // What a save runs, or what a search runs.
    let embed = |text: &str| match kind {
        "passage" => drop(black_box(model.embed(text).expect("a vector"))),
        "query" => drop(black_box(
            model.embed_if_read_whole(text).expect("a vector"),
        )),
        other => panic!("kind {other}: passage or query"),
    };
    texts.iter().for_each(|text| embed(text));
    let mut cpu: Vec<f64> = texts
        .iter()
        .map(|text| {
            let start = thread_cpu_ns();
            embed(text);
            (thread_cpu_ns() - start) as f64 / 1e6
        })
        .collect();
    let mean = cpu.iter().sum::<f64>() / cpu.len() as f64;
    cpu.sort_by(f64::total_cmp);
    println!(
        "{}",
        serde_json::json!({
            "texts": texts.len(),
            "precision": precision.to_string(),
            "cpu_ms_median": cpu[cpu.len() / 2],
            "cpu_ms_mean": mean,
        })
    );
}

/// This thread's CPU time in nanoseconds, as Python's `time.thread_time_ns` reads it for ONNX
/// Runtime: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, which brings the running thread's time up
/// to date. Its schedstat does not: read by the thread itself it is as of the last tick or
/// switch, so a text's time came in whole ticks (4 ms on a 250 Hz kernel).
fn thread_cpu_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to write.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "this thread's CPU clock");
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

/// int8 multiply-adds a second on this core: VNNI's `vpdpbusd` (64 byte products into 16
/// sums) on twelve independent sums, enough to cover the instruction's latency.
fn peak() {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx512vnni") && is_x86_feature_detected!("avx512f") {
        const ROUNDS: u64 = 200_000_000;
        // SAFETY: the CPU has AVX-512 F and VNNI (checked above).
        unsafe { vnni_rounds(1_000_000) };
        let start = thread_cpu_ns();
        // SAFETY: as above.
        let sink = unsafe { vnni_rounds(ROUNDS) };
        let seconds = (thread_cpu_ns() - start) as f64 / 1e9;
        black_box(sink);
        let per_second = (ROUNDS * 12 * 64) as f64 / seconds;
        println!(
            "{}",
            serde_json::json!({ "int8_multiply_adds_per_second": per_second })
        );
        return;
    }
    println!(
        "{}",
        serde_json::json!({ "int8_multiply_adds_per_second": null })
    );
}

/// `rounds` rounds of twelve `vpdpbusd`, each on its own sums.
///
/// # Safety
/// The CPU must have AVX-512 F and VNNI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vnni")]
unsafe fn vnni_rounds(rounds: u64) -> i32 {
    use std::arch::x86_64::*;
    // Opaque to the compiler, which would otherwise fold the constant products.
    let (a, b) = black_box((_mm512_set1_epi8(1), _mm512_set1_epi8(-1)));
    let mut sums = [_mm512_setzero_si512(); 12];
    for _ in 0..rounds {
        for sum in &mut sums {
            *sum = _mm512_dpbusd_epi32(*sum, a, b);
        }
    }
    sums.iter()
        .fold(0, |total, sum| total ^ _mm512_reduce_add_epi32(*sum))
}
