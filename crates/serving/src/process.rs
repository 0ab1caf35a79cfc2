//! The `process_*` metrics, named as Prometheus' Go and Python clients name them, read from
//! `/proc/self` on Linux. Elsewhere (or when `/proc` is not mounted) they are left out: a
//! missing series says "unknown" where a zero would lie.
//!
//! Reading them is a handful of small file reads per scrape; nothing is cached, so a scrape
//! always sees the current values.

use std::fmt::Write as _;

/// `/proc`'s clock ticks per second (`USER_HZ`). The kernel reports `/proc/*/stat` times in
/// this unit, fixed at 100 for user space on every architecture Linux runs certgate on;
/// asking `sysconf(_SC_CLK_TCK)` would need `unsafe` code for the same answer.
const USER_HZ: f64 = 100.0;

/// One reading of the process's resource use. A field is `None` when its source could not
/// be read or parsed; its metric is then left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProcessStats {
    /// User plus system CPU time, in seconds.
    pub cpu_seconds: Option<f64>,
    /// Resident set size, in bytes.
    pub resident_memory_bytes: Option<u64>,
    /// Virtual memory size, in bytes.
    pub virtual_memory_bytes: Option<u64>,
    /// Open file descriptors.
    pub open_fds: Option<u64>,
    /// The soft limit on open file descriptors; `None` when unlimited or unknown.
    pub max_fds: Option<u64>,
    /// When the process started, Unix seconds.
    pub start_time_seconds: Option<f64>,
}

/// What `/proc/self/stat` says: CPU time, start time (ticks after boot) and virtual size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StatFields {
    pub cpu_seconds: f64,
    pub start_ticks: u64,
    pub virtual_memory_bytes: u64,
}

/// Parses `/proc/[pid]/stat`. The command name (field 2) is in parentheses and may itself
/// hold spaces and parentheses, so the fields are counted from the last `)`.
pub fn parse_stat(text: &str) -> Option<StatFields> {
    let (_, rest) = text.rsplit_once(')')?;
    // `rest` starts at field 3 (state): field N is at index N - 3.
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    let (utime, stime) = (field(14)?, field(15)?);
    Some(StatFields {
        cpu_seconds: utime.saturating_add(stime) as f64 / USER_HZ,
        start_ticks: field(22)?,
        virtual_memory_bytes: field(23)?,
    })
}

/// The resident set size from `/proc/[pid]/status` (`VmRSS:  1948 kB`), in bytes.
pub fn parse_status_rss(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    let mut words = line.split_whitespace();
    let value = words.next()?.parse::<u64>().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        _ => None,
    }
}

/// The soft "Max open files" limit from `/proc/[pid]/limits`; `None` when `unlimited`.
pub fn parse_limits_max_fds(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|line| line.strip_prefix("Max open files"))?;
    line.split_whitespace().next()?.parse::<u64>().ok()
}

/// The boot time, Unix seconds, from `/proc/stat` (`btime 1795915159`).
pub fn parse_boot_time(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|line| line.strip_prefix("btime "))?;
    line.trim().parse::<u64>().ok()
}

impl ProcessStats {
    /// Combines the texts of `/proc/self/stat`, `/proc/self/status`, `/proc/self/limits`
    /// and `/proc/stat` (any may be missing) with the number of open descriptors.
    pub fn from_texts(
        stat: Option<&str>,
        status: Option<&str>,
        limits: Option<&str>,
        system_stat: Option<&str>,
        open_fds: Option<u64>,
    ) -> ProcessStats {
        let stat = stat.and_then(parse_stat);
        let boot_time = system_stat.and_then(parse_boot_time);
        ProcessStats {
            cpu_seconds: stat.map(|s| s.cpu_seconds),
            resident_memory_bytes: status.and_then(parse_status_rss),
            virtual_memory_bytes: stat.map(|s| s.virtual_memory_bytes),
            open_fds,
            max_fds: limits.and_then(parse_limits_max_fds),
            start_time_seconds: stat
                .zip(boot_time)
                .map(|(s, boot)| boot as f64 + s.start_ticks as f64 / USER_HZ),
        }
    }

    /// This process's reading now; every field `None` where `/proc` is unavailable.
    pub fn current() -> ProcessStats {
        if !cfg!(target_os = "linux") {
            return ProcessStats::default();
        }
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let open_fds = std::fs::read_dir("/proc/self/fd")
            .ok()
            .map(|entries| u64::try_from(entries.count()).unwrap_or(u64::MAX));
        ProcessStats::from_texts(
            read("/proc/self/stat").as_deref(),
            read("/proc/self/status").as_deref(),
            read("/proc/self/limits").as_deref(),
            read("/proc/stat").as_deref(),
            open_fds,
        )
    }

    /// Appends the known values as OpenMetrics families.
    pub fn encode(&self, out: &mut String) {
        family(
            out,
            "process_cpu_seconds",
            "counter",
            "CPU time the process used, user and system, in seconds.",
            "process_cpu_seconds_total",
            self.cpu_seconds.map(float),
        );
        let families = [
            (
                "process_resident_memory_bytes",
                "Memory of the process resident in RAM, in bytes.",
                self.resident_memory_bytes.map(|v| v.to_string()),
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual address space of the process, in bytes.",
                self.virtual_memory_bytes.map(|v| v.to_string()),
            ),
            (
                "process_open_fds",
                "File descriptors the process has open.",
                self.open_fds.map(|v| v.to_string()),
            ),
            (
                "process_max_fds",
                "The process's soft limit on open file descriptors.",
                self.max_fds.map(|v| v.to_string()),
            ),
            (
                "process_start_time_seconds",
                "When the process started, in seconds since the Unix epoch.",
                self.start_time_seconds.map(float),
            ),
        ];
        for (name, help, value) in families {
            family(out, name, "gauge", help, name, value);
        }
    }
}

/// A float as OpenMetrics wants it: always with a fractional part or exponent.
fn float(value: f64) -> String {
    let text = value.to_string();
    if text.contains(['.', 'e', 'E']) || !value.is_finite() { text } else { format!("{text}.0") }
}

fn family(
    out: &mut String,
    name: &str,
    kind: &str,
    help: &str,
    sample: &str,
    value: Option<String>,
) {
    if let Some(value) = value {
        // Writing to a String cannot fail.
        let _ = write!(out, "# HELP {name} {help}\n# TYPE {name} {kind}\n{sample} {value}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `/proc/self/stat` whose command name holds a space and a parenthesis.
    const STAT: &str = "4242 (cert gate) x) S 1 4242 4242 0 -1 4194560 3120 0 0 0 \
        250 125 0 0 20 0 9 0 5492308 73400320 4321 18446744073709551615 1 1 0 0 0 0 0 0 0 0 \
        0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

    const STATUS: &str = "Name:\tcertgate\nUmask:\t0022\nState:\tS (sleeping)\n\
        VmPeak:\t   80000 kB\nVmSize:\t   71680 kB\nVmRSS:\t   17284 kB\nThreads:\t9\n";

    const LIMITS: &str = "Limit                     Soft Limit           Hard Limit           Units     \n\
        Max cpu time              unlimited            unlimited            seconds   \n\
        Max open files            1024                 1048576              files     \n\
        Max locked memory         8388608              8388608              bytes     \n";

    const SYSTEM_STAT: &str = "cpu  1 2 3 4\nintr 1 2\nctxt 99\nbtime 1795915159\nprocesses 5\n";

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        assert_eq!(
            parse_stat(STAT),
            Some(StatFields {
                cpu_seconds: 3.75,
                start_ticks: 5_492_308,
                virtual_memory_bytes: 73_400_320
            })
        );
        assert_eq!(parse_stat("4242 (certgate) S 1 2"), None);
        assert_eq!(parse_stat("no parenthesis"), None);
    }

    #[test]
    fn status_limits_and_boot_time_are_read() {
        assert_eq!(parse_status_rss(STATUS), Some(17_284 * 1024));
        assert_eq!(parse_status_rss("VmRSS:\t17284 MB\n"), None);
        assert_eq!(parse_limits_max_fds(LIMITS), Some(1024));
        assert_eq!(
            parse_limits_max_fds("Max open files            unlimited            unlimited\n"),
            None
        );
        assert_eq!(parse_boot_time(SYSTEM_STAT), Some(1_795_915_159));
    }

    #[test]
    fn the_families_are_named_as_prometheus_clients_name_them() {
        let stats = ProcessStats::from_texts(
            Some(STAT),
            Some(STATUS),
            Some(LIMITS),
            Some(SYSTEM_STAT),
            Some(12),
        );
        let mut text = String::new();
        stats.encode(&mut text);
        let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            samples,
            [
                "process_cpu_seconds_total 3.75",
                "process_resident_memory_bytes 17698816",
                "process_virtual_memory_bytes 73400320",
                "process_open_fds 12",
                "process_max_fds 1024",
                "process_start_time_seconds 1795970082.08",
            ]
        );
        assert!(text.starts_with(
            "# HELP process_cpu_seconds CPU time the process used, user and system, in seconds.\n\
             # TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total 3.75\n"
        ));
        assert!(text.contains("# TYPE process_open_fds gauge\n"), "{text}");
    }

    #[test]
    fn what_cannot_be_read_is_left_out() {
        let mut text = String::new();
        ProcessStats::from_texts(None, Some(STATUS), None, None, None).encode(&mut text);
        assert_eq!(
            text,
            "# HELP process_resident_memory_bytes Memory of the process resident in RAM, in bytes.\n\
             # TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 17698816\n"
        );
        let mut nothing = String::new();
        ProcessStats::default().encode(&mut nothing);
        assert_eq!(nothing, "");
    }

    #[test]
    fn whole_seconds_keep_a_fraction() {
        assert_eq!(float(3.0), "3.0");
        assert_eq!(float(3.5), "3.5");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_measured_on_linux() {
        let stats = ProcessStats::current();
        assert!(stats.cpu_seconds.is_some(), "{stats:?}");
        assert!(stats.resident_memory_bytes.is_some_and(|b| b > 0), "{stats:?}");
        assert!(stats.virtual_memory_bytes.is_some_and(|b| b > 0), "{stats:?}");
        assert!(stats.open_fds.is_some_and(|n| n > 0), "{stats:?}");
        assert!(stats.start_time_seconds.is_some_and(|t| t > 1.0e9), "{stats:?}");
    }
}
