//! `qitune tune`: run (or resume) the adaptive GA.

use anyhow::Result;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use qitune::amazons::game::AmazonsGame;
use qitune::ga::config::Config;
use qitune::ga::run::Run;
use qitune::game::Game;
use qitune::xiangqi::game::XiangqiGame;
use std::path::{Path, PathBuf};

/// Tune the evaluation with the adaptive GA; the run lives in runs/<name>/.
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
    /// Folder holding the runs.
    #[arg(long, default_value = "runs")]
    runs: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let config = Config::read(&args.config)?;
    match super::GameKind::named(&config.game)? {
        super::GameKind::Xiangqi => tune::<XiangqiGame>(args, config),
        super::GameKind::Amazons => tune::<AmazonsGame>(args, config),
    }
}

fn tune<G: Game>(args: Args, config: Config) -> Result<()> {
    let config_generations = config.generations;
    let dir = args.runs.join(&config.name);
    let mut run = if args.resume {
        let run = Run::<G>::resume(&dir)?;
        config.check_same_run(&run.config).map_err(|e| {
            anyhow::anyhow!("{} does not match {}: {e}", args.config.display(), dir.display())
        })?;
        run
    } else {
        let config_dir = args.config.parent().unwrap_or(Path::new("."));
        Run::<G>::create(config, config_dir, &args.runs)?
    };
    // The target: --generations, else what the configuration asks for (also on a resume,
    // so that a run stopped early with --generations goes on to the configured end).
    let target = args.generations.unwrap_or(config_generations);
    if target != run.config.generations {
        run.set_generations(target)?;
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        anyhow::bail!("--threads must be at least 1");
    }
    let target = run.config.generations;
    let bars = MultiProgress::new();
    let run_bar = bars.add(ProgressBar::new(target as u64));
    run_bar.set_style(
        ProgressStyle::with_template("generations {bar:30} {pos}/{len} {msg} [{elapsed_precise} eta {eta}]")
            .expect("template"),
    );
    run_bar.set_position(run.generation() as u64);
    let m = run.config.population;
    let n = run.config.groups;
    let games: usize = (0..n)
        .map(|k| (k + 1) * m / n - k * m / n)
        .map(|s| s * (s - 1))
        .sum();
    let game_bar = bars.add(ProgressBar::new(games as u64));
    game_bar.set_style(
        ProgressStyle::with_template("games       {bar:30} {pos}/{len} [eta {eta}]").expect("template"),
    );
    println!(
        "run {} in {}: generation {} of {}, {games} games a generation",
        run.config.name,
        run.dir.display(),
        run.generation(),
        target
    );
    while run.generation() < target {
        game_bar.reset();
        let stats = run.step(threads, || game_bar.inc(1))?;
        run_bar.inc(1);
        run_bar.set_message(format!(
            "best {} mean {:.1}",
            stats.fitness_max, stats.fitness_mean
        ));
        let line = format!(
            "generation {:>4}: fitness max {:>3} mean {:>6.2} min {:>4}  pc {:.3} pm {:.4}  diversity {:>6.1}  {:.1} games/s",
            stats.generation, stats.fitness_max, stats.fitness_mean, stats.fitness_min, stats.pc_mean, stats.pm_mean,
            stats.diversity, stats.games_per_s
        );
        // Above the bars on a terminal; plain lines in a log.
        if bars.is_hidden() {
            println!("{line}");
        } else {
            bars.println(line)?;
        }
    }
    game_bar.finish_and_clear();
    run_bar.finish_and_clear();
    println!(
        "done: {} generations; champions in {}",
        run.generation(),
        run.dir.join("champions").display()
    );
    Ok(())
}
