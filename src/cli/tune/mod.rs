//! `qitune tune`: run (or resume) a tuning run: the adaptive GA, SPSA or a fit on the
//! positions of self-play games.

mod screen;

use anyhow::Result;
use qitune::game::{Budget, Game};
use qitune::games::{with_game, WithGame};
use qitune::report::ReportWriter;
use qitune::tune::config::Config;
use qitune::tune::folder::{best_validation, validations, RunError, ValidationRow};
use qitune::tune::method::Method;
use qitune::tune::methods::{with_method, WithMethod};
use qitune::tune::observe::{count, signed, validation_text, Observe, Stepped};
use qitune::tune::run::Run;
use qitune::tune::stages::{Plan, StageRun};
use screen::Screen;
use std::path::{Path, PathBuf};

/// Tune the evaluation (the adaptive GA, SPSA, or a fit on self-play positions, as the
/// configuration's `method` says); the run lives in runs/<name>/.
#[derive(clap::Args)]
pub struct Args {
    /// The run configuration (JSON).
    #[arg(long)]
    config: PathBuf,
    /// Worker threads (default: all cores); the results do not depend on it.
    #[arg(long, value_parser = super::threads_count)]
    threads: Option<usize>,
    /// Steps to reach, generations of the GA (overrides the configuration).
    #[arg(long, value_parser = super::positive::<usize>)]
    generations: Option<usize>,
    /// Continue the run from its last completed step.
    #[arg(long)]
    resume: bool,
    /// The run's name (its folder under --runs), instead of the configuration's.
    #[arg(long)]
    name: Option<String>,
    /// The run's seed, instead of the configuration's (a new run only).
    #[arg(long, conflicts_with = "resume")]
    seed: Option<u64>,
    /// Folder holding the runs.
    #[arg(long, default_value = "runs")]
    runs: PathBuf,
    /// No progress bars and no step lines: only the run's summary.
    #[arg(long, conflicts_with = "jsonl")]
    quiet: bool,
    /// One JSON object per step on standard output (its row of the run's CSV file, and its
    /// validation when it had one), for other programs.
    #[arg(long)]
    jsonl: bool,
    /// Under `mpirun`/`srun`: rank 0 runs the GA and the other ranks play its games, each
    /// with --threads threads (needs a build with `--features mpi`).
    #[arg(long)]
    mpi: bool,
}

pub fn run(args: Args) -> Result<()> {
    let plan = Plan::read(&args.config)?;
    let cluster = if args.mpi { Some(join_cluster()?) } else { None };
    #[cfg(feature = "mpi")]
    if let Some(c) = cluster.as_ref().filter(|c| c.rank() != 0) {
        use anyhow::Context as _;
        // Every rank but 0 only plays: the run folder, the output and the GA are rank 0's.
        let threads = args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        return c
            .serve(threads, qitune::games::play_sent)
            .with_context(|| format!("MPI rank {}", c.rank()));
    }
    struct Tune(Args, Plan, Option<Cluster>);
    impl WithGame for Tune {
        type Output = Result<()>;
        fn call<G: Game>(self) -> Result<()> {
            tune::<G>(self.0, self.1, self.2)
        }
    }
    let game = plan.game().to_string();
    with_game(&game, Tune(args, plan, cluster))?
}

#[cfg(feature = "mpi")]
type Cluster = std::rc::Rc<qitune::arena::cluster::Cluster>;
/// Without the `mpi` feature there is never a cluster.
#[cfg(not(feature = "mpi"))]
type Cluster = std::convert::Infallible;

#[cfg(feature = "mpi")]
fn join_cluster() -> Result<Cluster> {
    Ok(std::rc::Rc::new(qitune::arena::cluster::Cluster::init()?))
}

#[cfg(not(feature = "mpi"))]
fn join_cluster() -> Result<Cluster> {
    anyhow::bail!("--mpi: this qitune was built without MPI; build it with `cargo build --release --features mpi` (an MPI library such as Open MPI must be installed)")
}

fn tune<G: Game>(args: Args, mut plan: Plan, cluster: Option<Cluster>) -> Result<()> {
    if let Some(name) = &args.name {
        plan.rename(name)?;
    }
    if let Some(seed) = args.seed {
        plan.stages.iter_mut().for_each(|c| c.seed = seed);
    }
    // Every check before the run folder is made.
    if plan.staged && args.generations.is_some() {
        anyhow::bail!(
            "--generations: {} is a run in stages; each stage sets its own generations",
            args.config.display()
        );
    }
    for stage in plan.into_stages(&args.runs, args.resume)? {
        let stage = stage?;
        if stage.staged && !args.quiet && !args.jsonl {
            let start = stage.from.as_ref().map_or(String::new(), |s| {
                format!(
                    ", from stage {}'s {} {} ({})",
                    s.stage,
                    s.unit,
                    s.step,
                    s.champion.display()
                )
            });
            super::out(format!(
                "stage {} of {}: {}{start}",
                stage.number, stage.of, stage.config.method
            ));
        }
        let method = stage.config.method.clone();
        let stage = Stage::<G> {
            args: &args,
            stage,
            cluster: cluster.as_ref(),
            game: std::marker::PhantomData,
        };
        with_method(&method, stage)??;
    }
    Ok(())
}

/// One stage of a run (a run without stages is one), for the method it names.
struct Stage<'a, G> {
    args: &'a Args,
    stage: StageRun,
    cluster: Option<&'a Cluster>,
    game: std::marker::PhantomData<G>,
}

impl<G: Game> WithMethod for Stage<'_, G> {
    type Output = Result<()>;

    fn call<M: Method>(self) -> Result<()> {
        let Stage { args, stage, .. } = self;
        let StageRun {
            config,
            dir,
            parent,
            resume,
            ..
        } = stage;
        let config_generations = config.generations;
        let mut run = if resume {
            let run = Run::<G, M>::resume(&dir)?;
            config.check_same_run(&run.config).map_err(|e| {
                anyhow::anyhow!("{} does not match {}: {e}", args.config.display(), dir.display())
            })?;
            run
        } else {
            let config_dir = args.config.parent().unwrap_or(Path::new("."));
            Run::<G, M>::create(config, config_dir, &parent)?
        };
        #[cfg(feature = "mpi")]
        if let Some(c) = self.cluster {
            run.distribute(c.clone());
        }
        #[cfg(not(feature = "mpi"))]
        let _ = self.cluster;
        // The target: --generations, else what the configuration asks for (also on a resume,
        // so that a run stopped early with --generations goes on to the configured end).
        let target = args.generations.unwrap_or(config_generations);
        if target != run.target() {
            run.set_target(target)?;
        }
        drive(args, run)
    }
}

/// Plays `run` to this session's target with progress bars and lines, then sums it up.
fn drive<G: Game, M: Method>(args: &Args, mut run: Run<G, M>) -> Result<()> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (unit, target) = (M::INFO.unit, run.target());
    let turn = super::interrupt::exit_with(
        format!(
            "interrupted: {} keeps every finished {unit} (the one under way starts again); go on with: {}",
            run.dir.display(),
            resume_hint(args)
        ),
        Some(run.dir.join("run.log")),
        run.lock_path().map(Path::to_path_buf),
        Some(run.dir.clone()),
    );
    let mut screen = Screen::new(&run, !args.quiet && !args.jsonl, turn)?;
    let header = format!(
        "run {} in {}: {unit} {} of {target}, {} games a {unit}",
        run.config.name,
        run.dir.display(),
        run.done(),
        run.games_per_step()
    );
    screen.say(std::slice::from_ref(&header))?;
    if run.config.validation.is_some() {
        screen.show(&format!(
            "report: {} (written after the first step, then after every validation)",
            run.dir.join("report.html").display()
        ));
    }
    let mut report = ReportWriter;
    let mut jsonl = Jsonl;
    let mut observers: Vec<&mut dyn Observe<M::Row>> = vec![&mut report, &mut screen];
    if args.jsonl {
        observers.push(&mut jsonl);
    }
    let faults = run.session(threads, &mut observers)?;
    screen.finish();
    let done_all = run.done() >= run.planned();
    let (dir, config) = (run.dir.clone(), run.config.clone());
    // The run is closed (its lock gone) before the last report, which then says so.
    drop(run);
    let mut lines = summary(&dir, &config, unit, target, done_all)?;
    if faults > 0 {
        lines.push(format!(
            "faults: {} of this session lost to outside-engine faults (each step's are in {})",
            count(faults, "game"),
            dir.join("run.log").display()
        ));
    }
    screen.summary(&lines, args.jsonl)
}

/// A session's last lines: how far the run is, its report, its result and its best
/// validated champion.
fn summary(dir: &Path, config: &Config, unit: &str, target: usize, done_all: bool) -> Result<Vec<String>> {
    let mut lines = vec![format!(
        "done: {target} {unit}s{}; champions in {}",
        if done_all { "" } else { " (this session's target)" },
        dir.join("champions").display()
    )];
    match qitune::report::write(dir, None) {
        Ok(path) => lines.push(format!("report: {}", path.display())),
        Err(e) => eprintln!("warning: no report: {e}"),
    }
    let validations = validations(dir)?;
    if let Some(last) = validations.last() {
        lines.push(gain_line(last, config));
    }
    if let Some(best) = best_validation(&validations) {
        lines.push(format!(
            "best validated: {unit} {} ({}); export it with: {} export --run {} --best --out FILE",
            best.step,
            validation_text(best),
            super::me(),
            dir.display()
        ));
    }
    Ok(lines)
}

/// The run's result in one line: its last validation against the anchor, by name.
fn gain_line(v: &ValidationRow, config: &Config) -> String {
    let file_name = |p: &str| {
        Path::new(p)
            .file_name()
            .map_or_else(|| p.to_string(), |n| n.to_string_lossy().into_owned())
    };
    let validation = config.validation.as_ref();
    let anchor = match (
        validation.and_then(|v| v.anchor.as_deref()),
        config.base_weights.as_deref(),
        &config.engine,
    ) {
        (Some(a), _, _) | (None, Some(a), _) => file_name(a),
        (None, None, Some(_)) => "the engine at its defaults".to_string(),
        (None, None, None) => "the built-in weights".to_string(),
    };
    let budget = validation
        .and_then(|c| c.nodes)
        .map_or_else(|| config.environment(v.step).budget(), Budget::Nodes);
    let against = format!("{anchor} on {} held-out games at {budget}", v.games);
    let result = match (v.elo, v.elo_low, v.elo_high) {
        (Some(e), Some(lo), Some(hi)) if lo > 0.0 => {
            format!(
                "gained {} Elo (95% {} to {}) over {against}",
                signed(e),
                signed(lo),
                signed(hi)
            )
        }
        (Some(e), Some(lo), Some(hi)) if hi < 0.0 => {
            format!(
                "lost {:.1} Elo (95% {} to {}) to {against}",
                -e,
                signed(lo),
                signed(hi)
            )
        }
        (Some(e), Some(lo), Some(hi)) => {
            format!(
                "no clear change, {} Elo (95% {} to {}) against {against}",
                signed(e),
                signed(lo),
                signed(hi)
            )
        }
        (Some(e), _, _) => format!(
            "{} Elo (too few games for an interval) against {against}",
            signed(e)
        ),
        _ => format!("score {:.3} against {against}", v.score),
    };
    format!(
        "result: {} {} {}: {result}",
        config.name,
        qitune::tune::methods::info(&config.method).map_or("step", |m| m.unit),
        v.step
    )
}

/// The command that goes on with this run as this session would have: the configuration,
/// where the run lives, and the session's own flags (without `--generations` a short
/// session would go on to the configuration's whole plan).
fn resume_hint(args: &Args) -> String {
    let mut again = format!("{} tune --config {} --resume", super::me(), args.config.display());
    if args.runs != Path::new("runs") {
        again.push_str(&format!(" --runs {}", args.runs.display()));
    }
    if let Some(name) = &args.name {
        again.push_str(&format!(" --name {name}"));
    }
    if let Some(generations) = args.generations {
        again.push_str(&format!(" --generations {generations}"));
    }
    if let Some(threads) = args.threads {
        again.push_str(&format!(" --threads {threads}"));
    }
    if args.quiet {
        again.push_str(" --quiet");
    }
    if args.jsonl {
        again.push_str(" --jsonl");
    }
    again
}

/// One JSON object a step on standard output (its row, and its validation when it had
/// one), for other programs.
struct Jsonl;

impl<R: serde::Serialize> Observe<R> for Jsonl {
    fn step(&mut self, step: &mut Stepped<R>) -> Result<(), RunError> {
        let report = step.report;
        super::out(serde_json::json!({ "stats": report.stats, "validation": report.validation }));
        Ok(())
    }
}
