//! `qitune tune`: run (or resume) a tuning run: the adaptive GA, SPSA or a fit on the
//! positions of self-play games.

use anyhow::{Context, Result};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use qitune::amazons::game::AmazonsGame;
use qitune::game::Game;
use qitune::tune::config::Config;
use qitune::tune::folder::{best_validation, validations, RunError, ValidationRow};
use qitune::tune::method::Method;
use qitune::tune::methods::{with_method, WithMethod};
use qitune::tune::run::Run;
use qitune::tune::stages::{stage_start, Plan};
use qitune::xiangqi::game::XiangqiGame;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Tune the evaluation (the adaptive GA, SPSA, or a fit on self-play positions, as the
/// configuration's `method` says); the run lives in runs/<name>/.
#[derive(clap::Args)]
pub struct Args {
    /// The run configuration (JSON).
    #[arg(long)]
    config: PathBuf,
    /// Worker threads (default: all cores); the results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Generations to reach (overrides the configuration).
    #[arg(long)]
    generations: Option<usize>,
    /// Continue the run from its last completed generation.
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
    /// No progress bars and no generation lines: only the run's summary.
    #[arg(long, conflicts_with = "jsonl")]
    quiet: bool,
    /// One JSON object per generation on standard output (its generations.csv row, and its
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
    let cluster = if args.mpi {
        Some(join_cluster(&args)?)
    } else {
        None
    };
    #[cfg(feature = "mpi")]
    if let Some(c) = cluster.as_ref().filter(|c| c.rank() != 0) {
        // Every rank but 0 only plays: the run folder, the output and the GA are rank 0's.
        let threads = args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        return c
            .serve(threads, qitune::games::play_sent)
            .with_context(|| format!("MPI rank {}", c.rank()));
    }
    match super::GameKind::named(plan.game())? {
        super::GameKind::Xiangqi => tune::<XiangqiGame>(args, plan, cluster),
        super::GameKind::Amazons => tune::<AmazonsGame>(args, plan, cluster),
    }
}

#[cfg(feature = "mpi")]
type Cluster = std::rc::Rc<qitune::arena::cluster::Cluster>;
/// Without the `mpi` feature there is never a cluster.
#[cfg(not(feature = "mpi"))]
type Cluster = std::convert::Infallible;

#[cfg(feature = "mpi")]
fn join_cluster(args: &Args) -> Result<Cluster> {
    if args.threads == Some(0) {
        anyhow::bail!("--threads must be at least 1");
    }
    Ok(std::rc::Rc::new(qitune::arena::cluster::Cluster::init()?))
}

#[cfg(not(feature = "mpi"))]
fn join_cluster(_: &Args) -> Result<Cluster> {
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
    if args.threads == Some(0) {
        anyhow::bail!("--threads must be at least 1");
    }
    if args.generations == Some(0) {
        anyhow::bail!("--generations must be at least 1");
    }
    if plan.staged && args.generations.is_some() {
        anyhow::bail!(
            "--generations: {} is a run in stages; each stage sets its own generations",
            args.config.display()
        );
    }
    let parent = plan.parent_dir(&args.runs);
    if plan.staged && !args.resume && parent.exists() {
        return Err(RunError::Exists(parent).into());
    }
    if plan.staged && args.resume && !parent.is_dir() {
        anyhow::bail!("{} holds no run to resume", parent.display());
    }
    let stages = plan.stages.len();
    let mut previous: Option<PathBuf> = None;
    for (i, mut config) in plan.stages.into_iter().enumerate() {
        let dir = parent.join(&config.name);
        // A run in stages resumes the stages it has begun and begins the others.
        let resume = args.resume && (!plan.staged || dir.exists());
        let mut start = String::new();
        if !resume {
            if let Some(before) = &previous {
                let (generation, champion) = stage_start(before)?;
                start = format!(
                    ", from stage {i}'s generation {generation} ({})",
                    champion.display()
                );
                config.base_weights = Some(champion.to_string_lossy().into_owned());
            }
        }
        if plan.staged && !args.quiet && !args.jsonl {
            println!("stage {} of {stages}: {}{start}", i + 1, config.method);
        }
        let method = config.method.clone();
        let stage = Stage::<G> {
            args: &args,
            config,
            dir: &dir,
            parent: &parent,
            resume,
            cluster: cluster.as_ref(),
            game: std::marker::PhantomData,
        };
        with_method(&method, stage)??;
        previous = Some(dir);
    }
    Ok(())
}

/// One stage of a run (a run without stages is one), for the method it names.
struct Stage<'a, G> {
    args: &'a Args,
    config: Config,
    dir: &'a Path,
    parent: &'a Path,
    resume: bool,
    cluster: Option<&'a Cluster>,
    game: std::marker::PhantomData<G>,
}

impl<G: Game> WithMethod for Stage<'_, G> {
    type Output = Result<()>;

    fn call<M: Method>(self) -> Result<()> {
        let Stage {
            args, config, dir, ..
        } = self;
        let config_generations = config.generations;
        let mut run = if self.resume {
            let run = Run::<G, M>::resume(dir)?;
            config.check_same_run(&run.config).map_err(|e| {
                anyhow::anyhow!("{} does not match {}: {e}", args.config.display(), dir.display())
            })?;
            run
        } else {
            let config_dir = args.config.parent().unwrap_or(Path::new("."));
            Run::<G, M>::create(config, config_dir, self.parent)?
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
        if target != run.config.generations {
            run.set_generations(target)?;
        }
        drive(args, run)
    }
}

/// Plays `run` to its last generation with progress bars and lines, then sums it up.
fn drive<G: Game, M: Method>(args: &Args, mut run: Run<G, M>) -> Result<()> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let target = run.config.generations;
    let bars = if args.quiet || args.jsonl {
        MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::hidden())
    } else {
        MultiProgress::new()
    };
    let run_bar = bars.add(ProgressBar::new(target as u64));
    let unit = M::INFO.unit;
    run_bar.set_style(
        ProgressStyle::with_template(&format!(
            "{:<11} {{bar:30}} {{pos}}/{{len}} {{msg}} [{{elapsed_precise}} eta {{eta}}]",
            format!("{unit}s")
        ))
        .expect("template"),
    );
    run_bar.set_position(run.generation() as u64);
    let games = run.games_per_step();
    let game_bar = bars.add(ProgressBar::new(games as u64));
    game_bar.set_style(
        ProgressStyle::with_template("games       {bar:30} {pos}/{len} [eta {eta}]").expect("template"),
    );
    let header = format!(
        "run {} in {}: {unit} {} of {}, {games} games a {unit}",
        run.config.name,
        run.dir.display(),
        run.generation(),
        target
    );
    if !args.quiet && !args.jsonl {
        println!("{header}");
    }
    let mut again = format!("qitune tune --config {} --resume", args.config.display());
    if args.runs != Path::new("runs") {
        again.push_str(&format!(" --runs {}", args.runs.display()));
    }
    if let Some(name) = &args.name {
        again.push_str(&format!(" --name {name}"));
    }
    super::interrupt::exit_with(format!(
        "interrupted: {} keeps every finished {unit} (the one under way starts again); go on with: {again}",
        run.dir.display()
    ));
    let log_path = run.dir.join("run.log");
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .with_context(|| format!("cannot open {}", log_path.display()))?;
    let mut log_line = |line: &str| {
        writeln!(log, "[{}] {line}", super::progress::clock_now())
            .with_context(|| format!("cannot write {}", log_path.display()))
    };
    log_line(&header)?;
    while run.generation() < target {
        game_bar.reset();
        let report = run.step(threads, || game_bar.inc(1))?;
        run_bar.inc(1);
        run_bar.set_message(run.method().progress(&report.stats));
        let mut lines = vec![run.method().line(&report.stats)];
        if let Some(v) = &report.validation {
            lines.push(format!("  validation: {}", validation_text(v)));
        }
        for line in &lines {
            log_line(line)?;
            // Above the bars on a terminal; plain lines in a log.
            if args.quiet || args.jsonl {
                continue;
            }
            if bars.is_hidden() {
                println!("{line}");
            } else {
                bars.println(line)?;
            }
        }
        if args.jsonl {
            let row = serde_json::json!({ "stats": report.stats, "validation": report.validation });
            println!("{row}");
        }
    }
    game_bar.finish_and_clear();
    run_bar.finish_and_clear();
    let mut summary = vec![format!(
        "done: {} {unit}s; champions in {}",
        run.generation(),
        run.dir.join("champions").display()
    )];
    // The report is a view of the folder: a failure to draw it loses nothing of the run.
    match qitune::report::write(&run.dir, None) {
        Ok(path) => summary.push(format!("report: {}", path.display())),
        Err(e) => eprintln!("warning: no report: {e}"),
    }
    let validations = validations(&run.dir)?;
    if let Some(best) = best_validation(&validations) {
        summary.push(format!(
            "best validated: generation {} ({}); export it with: qitune export --run {} --best --out FILE",
            best.generation,
            validation_text(best),
            run.dir.display()
        ));
    }
    for line in &summary {
        log_line(line)?;
        // With --jsonl, standard output holds JSON only.
        if args.jsonl {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    Ok(())
}

/// A validation in words: the champion's results and Elo against the anchor.
fn validation_text(v: &ValidationRow) -> String {
    let elo = match (v.elo, v.elo_low, v.elo_high) {
        (Some(e), Some(lo), Some(hi)) => format!("Elo {:+.1} (95% {:+.1} to {:+.1})", e, lo, hi),
        (Some(e), _, _) => format!("Elo {e:+.1}"),
        _ if v.score >= 1.0 => "every game won".to_string(),
        _ => "every game lost".to_string(),
    };
    format!(
        "{} games vs the anchor on held-out positions: +{} ={} -{}, {elo}, LOS {:.1}%",
        v.games,
        v.wins,
        v.draws,
        v.losses,
        100.0 * v.los
    )
}
