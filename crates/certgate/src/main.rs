//! The `certgate` binary: parses the command line and wires it to [`certgate::commands`].
#![forbid(unsafe_code)]

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use certgate::cli::{Cli, Command};
use certgate::commands::{
    check, completion, controller, crds, crl, decide, dev, edge, explain, man, renew, revoke,
    status, template, version, webhook,
};
use certgate::shared::output::{self, QuietPipe};
use certgate::shared::report::{CheckStatus, OutputError};
use certgate_api::certificate_request::manual::ManualDecision;
use clap::{CommandFactory, Parser};

fn main() -> ExitCode {
    let cli = Cli::parse_from(certgate::cli::normalise(std::env::args_os()));
    match run(cli) {
        Ok(code) => code,
        // The reader of standard output went away (`| head`): nothing failed.
        Err(err) if output::is_broken_pipe(err.as_ref()) => output::exit_quietly(),
        Err(err) => {
            // certgate's error messages already include their causes.
            eprintln!("error: {err}");
            ExitCode::from(CheckStatus::Failed.code())
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // Every command's output goes through here: a closed pipe ends the process quietly.
    let mut stdout = QuietPipe::new(std::io::stdout().lock());
    match cli.command {
        Command::Check(args) => {
            let colour = std::io::stdout().is_terminal() && !no_color();
            let stdin = std::io::stdin().lock();
            let mut stderr = std::io::stderr().lock();
            let status = check::run(&args, colour, stdin, &mut stdout, &mut stderr)?;
            stdout.flush().map_err(OutputError::Io)?;
            Ok(ExitCode::from(status.code()))
        }
        Command::Explain(args) => {
            let colour = std::io::stdout().is_terminal() && !no_color();
            let status = explain::run(&args, colour, &mut stdout)?;
            Ok(ExitCode::from(status.code()))
        }
        Command::Crds(args) => {
            let text = crds::render(args.output, &args.include)?;
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(crds::CrdsError::Io)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Webhook(args) => {
            webhook::run(&args, &mut stdout)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Controller(args) => {
            controller::run(&args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Dev(args) => {
            dev::run(&args, &mut stdout)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Approve(args) => Ok(decide_command(&args, ManualDecision::Approve, &mut stdout)),
        Command::Deny(args) => Ok(decide_command(&args, ManualDecision::Deny, &mut stdout)),
        Command::Renew(args) => Ok(renew::run(&args, &mut stdout, &mut std::io::stderr().lock())),
        Command::Status(args) => match args.command {
            status::StatusCommand::Certificate(args) => {
                Ok(status::certificate::run(&args, &mut stdout))
            }
        },
        Command::Revoke(args) => Ok(match revoke::run(&args) {
            Ok(line) => {
                writeln!(stdout, "{line}")?;
                stdout.flush()?;
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::FAILURE
            }
        }),
        Command::Template(args) => {
            let template::TemplateCommand::Resolve(args) = args.command;
            let stdin = std::io::stdin().lock();
            let mut stderr = std::io::stderr().lock();
            let status = template::run_resolve(&args, stdin, &mut stdout, &mut stderr)?;
            stdout.flush()?;
            Ok(ExitCode::from(status))
        }
        Command::Crl(args) => {
            let stdin = std::io::stdin().lock();
            let mut stderr = std::io::stderr().lock();
            let status = crl::run(&args, stdin, &mut stdout, &mut stderr)?;
            stdout.flush()?;
            Ok(ExitCode::from(status))
        }
        Command::Edge(args) => {
            match args.command {
                edge::EdgeCommand::Bootstrap(args) => {
                    edge::run_bootstrap(&args, &mut stdout)?;
                    stdout.flush()?;
                }
                edge::EdgeCommand::Serve(args) => edge::run_serve(&args)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Version(args) => {
            let text = version::BuildInfo::current().render(args.output);
            stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Completion(args) => {
            let script = completion::render(args.shell, &mut Cli::command());
            stdout.write_all(&script).and_then(|()| stdout.flush())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man(args) => {
            let written = man::write_pages(Cli::command(), &args.dir)?;
            writeln!(stdout, "wrote {} man pages to {}", written.len(), args.dir.display())?;
            stdout.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `approve` / `deny`: like cmctl, the outcome and any error go to standard output, and an
/// error exits with status 1.
fn decide_command(
    args: &decide::DecideArgs,
    decision: ManualDecision,
    stdout: &mut impl Write,
) -> ExitCode {
    let program = decide::program_name(&std::env::args().next().unwrap_or_default());
    let (line, code) = match decide::run(args, decision, &program) {
        Ok(line) => (line, ExitCode::SUCCESS),
        Err(err) => (err.to_string(), ExitCode::FAILURE),
    };
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
    code
}

/// `NO_COLOR` set to a non-empty value turns colour off (<https://no-color.org>).
fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
