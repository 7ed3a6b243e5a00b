//! `qitune roundrobin`: the paper's experiment, generation champions (and random players)
//! against each other.

use anyhow::{bail, Context, Result};
use qitune::arena::rating::{Crosstable, Rating};
use qitune::arena::Player;
use qitune::arena::{self, Conditions, Fixture, Runner, Schedule};
use qitune::game::{Budget, Game, Seat};
use qitune::games::{with_game, WithGame};
use qitune::tune::config::Config;
use qitune::tune::folder::existing_champion;
use std::fmt::Write;
use std::path::PathBuf;

/// Round robin of a run's champions of several steps (and K random players): a crosstable of the
/// paper's +1/-1 scores and maximum-likelihood ratings with 95% error bars.
#[derive(clap::Args)]
pub struct Args {
    /// The run folder (runs/<name>; for a run in stages, its latest stage, or name one:
    /// runs/<name>/stage-N).
    #[arg(long)]
    run: PathBuf,
    /// Steps (generations of the GA) whose champions play: a list of numbers and ranges FIRST-LAST[:STEP],
    /// e.g. 1,10-60:10.
    #[arg(long, value_parser = parse_gens)]
    gens: Gens,
    /// Random players to add (random:1 .. random:K).
    #[arg(long, default_value_t = 0)]
    random: usize,
    /// Games between each pair (an even number: each opening with both colours).
    #[arg(long, default_value_t = 20, value_parser = even_count)]
    games_per_pair: usize,
    /// Nodes per move.
    #[arg(long, default_value_t = 1000, value_parser = super::positive::<u64>)]
    nodes: u64,
    /// Start positions (default: the run's first environment's).
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = super::threads_count)]
    threads: Option<usize>,
    /// Where to write PREFIX.md and PREFIX.csv (default: <run>/roundrobin).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Overwrite an earlier crosstable at PREFIX.
    #[arg(long)]
    force: bool,
    /// No progress bar and no progress lines: only the crosstable.
    #[arg(long, conflicts_with = "jsonl")]
    quiet: bool,
    /// One JSON object per finished game on standard output (the players with Red or White
    /// first, the result for the first, ending, plies), then one with the ratings; the
    /// crosstable goes to standard error.
    #[arg(long)]
    jsonl: bool,
}

/// The generations of `--gens`, in the order given, without repeats.
#[derive(Clone, Debug)]
struct Gens(Vec<usize>);

/// Reads `1,10-60:10` as 1, 10, 20, ..., 60.
fn parse_gens(text: &str) -> Result<Gens, String> {
    let bad = |item: &str| format!("'{item}' is not a generation, FIRST-LAST or FIRST-LAST:STEP");
    let mut gens = Vec::new();
    for item in text.split(',').map(str::trim) {
        let (range, step) = match item.split_once(':') {
            Some((r, s)) => (r, s.parse::<usize>().map_err(|_| bad(item))?),
            None => (item, 1),
        };
        let (first, last) = match range.split_once('-') {
            Some((a, b)) => (
                a.parse::<usize>().map_err(|_| bad(item))?,
                b.parse::<usize>().map_err(|_| bad(item))?,
            ),
            None => {
                let g = range.parse::<usize>().map_err(|_| bad(item))?;
                (g, g)
            }
        };
        if step == 0 || first == 0 || first > last || (last - first) / step > 10_000 {
            return Err(format!(
                "'{item}': generations start at 1, ranges go upwards in steps of at least 1, and a range lists at most 10,000"
            ));
        }
        gens.extend((first..=last).step_by(step));
    }
    let mut seen = std::collections::HashSet::new();
    gens.retain(|g| seen.insert(*g));
    Ok(Gens(gens))
}

/// `--games-per-pair`: a positive even number, each opening being played with both colours.
fn even_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 && n % 2 == 0 && n <= 1_000_000 => Ok(n),
        _ => Err(format!(
            "'{text}' is not an even number from 2 to 1000000 (each opening is played with both colours)"
        )),
    }
}

pub fn run(mut args: Args) -> Result<()> {
    args.run = qitune::tune::stages::run_folder(&args.run);
    let config: Config = qitune::tune::folder::read_json(&args.run.join("config.json"))?;
    struct Play(Args, Config);
    impl WithGame for Play {
        type Output = Result<()>;
        fn call<G: Game>(self) -> Result<()> {
            round_robin::<G>(self.0, self.1)
        }
    }
    let dir = args.run.clone();
    with_game(&config.game.clone(), Play(args, config))
        .with_context(|| format!("{}/config.json", dir.display()))?
}

fn round_robin<G: Game>(args: Args, config: Config) -> Result<()> {
    let prefix = args.out.clone().unwrap_or_else(|| args.run.join("roundrobin"));
    let with_ext = |ext: &str| PathBuf::from(format!("{}.{ext}", prefix.display()));
    for ext in ["md", "csv"] {
        super::check_new_file(&with_ext(ext), args.force)?;
    }
    let (names, players) = players::<G>(&args)?;
    let positions_path = match &args.positions {
        Some(p) => p.clone(),
        // A run folder's configuration can be edited by hand: no environment is an error.
        None => match config.environments.first() {
            Some(e) => PathBuf::from(&e.positions),
            None => bail!(
                "{}/config.json lists no environments: give --positions",
                args.run.display()
            ),
        },
    };
    let positions = arena::read_positions::<G>(&positions_path)?;
    let (table, plus_minus) = play::<G>(&args, &names, players, &positions)?;
    let ratings = table.ratings();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| ratings[b].elo.total_cmp(&ratings[a].elo));
    let (md, csv) = tables(&names, &order, &plus_minus, &ratings)?;
    qitune::fsutil::write_atomic(&with_ext("md"), md.as_bytes())
        .with_context(|| format!("cannot write {}", with_ext("md").display()))?;
    qitune::fsutil::write_atomic(&with_ext("csv"), &csv)
        .with_context(|| format!("cannot write {}", with_ext("csv").display()))?;
    let words = format!(
        "{md}cells: wins minus losses of the row player against the column player over {} games\nwritten to {} and {}",
        args.games_per_pair,
        with_ext("md").display(),
        with_ext("csv").display()
    );
    if args.jsonl {
        eprintln!("{words}");
        let rated: Vec<serde_json::Value> = order
            .iter()
            .map(|&i| {
                serde_json::json!({"player": names[i], "score": plus_minus[i].iter().sum::<i32>(),
                "rating": ratings[i].elo, "error95": ratings[i].error})
            })
            .collect();
        super::out(serde_json::json!({ "ratings": rated }));
    } else {
        super::out(words);
    }
    Ok(())
}

/// The players and their names: the champions of --gens, then --random random players.
fn players<G: Game>(args: &Args) -> Result<(Vec<String>, Vec<G::Weights>)> {
    let mut names = Vec::new();
    let mut players = Vec::new();
    for &g in &args.gens.0 {
        let path = existing_champion(&args.run, g)?;
        // Named as its file is (`step-0030`, or `gen-0030` in a folder of format 1).
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        names.push(stem.to_string());
        players.push(G::load_weights(&path)?);
    }
    for k in 1..=args.random {
        names.push(format!("random:{k}"));
        players.push(arena::player_weights::<G>(&format!("random:{k}"))?);
    }
    if players.len() < 2 {
        bail!("a round robin needs at least two players (give more --gens or --random)");
    }
    Ok((names, players))
}

/// Plays every pair's games (each pair its own run of openings from the set, each with both
/// colours): the crosstable of points, and each player's wins minus losses against each other.
fn play<G: Game>(
    args: &Args,
    names: &[String],
    players: Vec<G::Weights>,
    positions: &[G::Board],
) -> Result<(Crosstable, Vec<Vec<i32>>)> {
    let n = players.len();
    let pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect();
    let openings_per_pair = args.games_per_pair / 2;
    let mut fixtures = Vec::new();
    for (p, &(i, j)) in pairs.iter().enumerate() {
        for k in 0..openings_per_pair {
            let position = (p * openings_per_pair + k) % positions.len();
            fixtures.extend(Fixture::pair(i, j, position));
        }
    }
    let budget = Budget::Nodes(args.nodes);
    let players: Vec<Player<G::Weights>> = players.into_iter().map(|w| Player::weights(w, budget)).collect();
    let schedule = Schedule::<G> {
        players: &players,
        params: None,
        positions,
        fixtures: &fixtures,
        conditions: Conditions::for_budget(budget),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = super::progress::Progress::new(fixtures.len() as u64, "games", args.quiet || args.jsonl);
    let records = schedule.run_indexed(&Runner::new(threads)?, |i, record| {
        bar.tick("");
        if args.jsonl {
            let f = fixtures[i];
            let result = match record.winner {
                None => "draw",
                Some(Seat::First) => "win",
                Some(_) => "loss",
            };
            super::out(
                serde_json::json!({"game": i + 1, "first": names[f.first], "second": names[f.second],
                "result": result, "ending": record.ending.to_string(), "plies": record.plies()}),
            );
        }
    })?;
    bar.finish();
    let mut table = Crosstable::new(n);
    let mut plus_minus = vec![vec![0i32; n]; n];
    for (f, record) in fixtures.iter().zip(&records) {
        let r = arena::result_for(record, Seat::First);
        table.add(f.first, f.second, r.wins as f64 + 0.5 * r.draws as f64);
        let signed = r.wins as i32 - r.losses as i32;
        plus_minus[f.first][f.second] += signed;
        plus_minus[f.second][f.first] -= signed;
    }
    Ok((table, plus_minus))
}

/// The crosstable in `order` as Markdown and as CSV.
fn tables(
    names: &[String],
    order: &[usize],
    plus_minus: &[Vec<i32>],
    ratings: &[Rating],
) -> Result<(String, Vec<u8>)> {
    let ordered: Vec<String> = order.iter().map(|&k| names[k].clone()).collect();
    let mut md = String::new();
    let _ = writeln!(md, "| player | {} | score | rating | 95% |", ordered.join(" | "));
    let _ = writeln!(md, "|---|{}---|---|---|", "---|".repeat(names.len()));
    let mut csv = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["player".to_string()];
    header.extend(ordered);
    header.extend(["score".into(), "rating".into(), "error95".into()]);
    csv.write_record(&header)?;
    for &i in order {
        let cells: Vec<String> = order
            .iter()
            .map(|&j| {
                if i == j {
                    "-".into()
                } else {
                    format!("{:+}", plus_minus[i][j])
                }
            })
            .collect();
        let total: i32 = plus_minus[i].iter().sum();
        let (elo, error) = (ratings[i].elo, ratings[i].error);
        let _ = writeln!(
            md,
            "| {} | {} | {total:+} | {elo:+.0} | {error:.0} |",
            names[i],
            cells.join(" | ")
        );
        let mut row = vec![names[i].clone()];
        row.extend(cells);
        row.extend([total.to_string(), format!("{elo:.1}"), format!("{error:.1}")]);
        csv.write_record(&row)?;
    }
    Ok((md, csv.into_inner()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_lists_take_ranges() {
        assert_eq!(
            parse_gens("1,10-60:10").unwrap().0,
            vec![1, 10, 20, 30, 40, 50, 60]
        );
        assert_eq!(parse_gens("5-7, 6").unwrap().0, vec![5, 6, 7]);
        assert_eq!(parse_gens("3").unwrap().0, vec![3]);
        for bad in ["0", "9-3", "1-9:0", "x", "1-", "1-1000000000"] {
            assert!(parse_gens(bad).is_err(), "{bad}");
        }
    }
}
