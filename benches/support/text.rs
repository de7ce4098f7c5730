//! Deterministic Japanese-looking summaries for the benchmarks (`benches/scale.rs` and
//! `examples/kioku-bench`), so that every run and every service stores the same text.

/// `chars` characters of kana and kanji, a function of `thread` and `entry` only; when
/// `marked`, it starts with the word 記憶装置, which searches look for.
pub fn summary(thread: usize, entry: usize, chars: usize, marked: bool) -> String {
    const KANA: &[char] = &[
        'あ', 'い', 'う', 'え', 'お', 'か', 'き', 'く', 'け', 'こ', '会', '話', '要', '約', '設',
        '計', '。',
    ];
    let mut state = (thread * 31 + entry * 7 + 1) as u64;
    let mut text: String = (0..chars)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            KANA[(state >> 33) as usize % KANA.len()]
        })
        .collect();
    if marked {
        text.replace_range(0..3 * 4, "記憶装置");
    }
    text
}
