//! The logging flags cmctl's root command gives every cmctl command (`-v`, `--vmodule`,
//! `--logging-format`, `--log-flush-frequency`), accepted by the commands certgate shares
//! with cmctl (`approve`, `deny`, `renew`, `status certificate`) so cmctl command lines work
//! unchanged. Those commands print their result and write no log, so the values change
//! nothing; they are still checked as cmctl checks them.

use std::time::Duration;

use clap::Args;

use crate::shared::duration::parse_duration;

/// The help heading of these flags.
pub const CMCTL_LOG_HEADING: &str = "cmctl logging flags (accepted; this command writes no log)";

/// cmctl's logging flags.
#[derive(Clone, Debug, Default, Args)]
pub struct CmctlLogArgs {
    /// Log verbosity (cmctl's klog level)
    #[arg(help_heading = CMCTL_LOG_HEADING, short = 'v', long = "v", value_name = "LEVEL", default_value_t = 0)]
    pub verbosity: u32,

    /// Per-file verbosity, pattern=N,... (cmctl's klog flag)
    #[arg(help_heading = CMCTL_LOG_HEADING, long, value_name = "PATTERN=N,...", default_value = "", hide_default_value = true)]
    pub vmodule: String,

    /// Log format (cmctl's flag of this name)
    #[arg(help_heading = CMCTL_LOG_HEADING, long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub logging_format: String,

    /// Longest time between log flushes (cmctl's flag of this name)
    #[arg(help_heading = CMCTL_LOG_HEADING, long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub log_flush_frequency: Duration,
}
