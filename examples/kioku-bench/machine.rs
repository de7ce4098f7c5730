//! The machine a run measured on: cores, model, memory, date, and its load before and after.

pub struct Machine {
    pub cores: usize,
    pub model: String,
    pub memory_gib: u64,
    pub date: String,
    pub load_before: String,
    pub load_after: String,
}

fn proc_field(file: &str, key: &str) -> String {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .map(|value| value.trim_start_matches([' ', '\t', ':']).to_owned())
        .unwrap_or_else(|| "unknown".into())
}

/// The 1-, 5- and 15-minute load averages.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Machine {
    pub fn now() -> Self {
        let kib: u64 = proc_field("/proc/meminfo", "MemTotal")
            .trim_end_matches(" kB")
            .parse()
            .unwrap_or(0);
        Self {
            cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
            model: proc_field("/proc/cpuinfo", "model name"),
            memory_gib: kib.div_ceil(1024 * 1024),
            date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
            load_before: load_average(),
            load_after: String::new(),
        }
    }

    pub fn finished(self) -> Self {
        Self {
            load_after: load_average(),
            ..self
        }
    }
}
