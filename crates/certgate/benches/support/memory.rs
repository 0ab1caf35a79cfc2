//! The peak memory of this bench process (VmHWM from /proc/self/status), in MiB; 0 where
//! /proc is not there. Shared by the benches that hold an API server in process.

pub fn peak_memory_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}
