//! `qitune match --resume`: a stopped match's games read back from its `--pgn` file.

use super::summary::Summary;
use super::Args;
use anyhow::{bail, Context, Result};
use qitune::arena::{self, pgn, Match};
use qitune::game::{Ending, Game, Seat};

/// Reads a stopped match's games back from its --pgn file into `summary` and returns how
/// many there are, after checking that they are this match's first games: rounds 1 to N in
/// order, A and B in their seats, each from its scheduled position, each complete.
pub fn resumed<G: Game>(args: &Args, m: &Match<G>, summary: &mut Summary) -> Result<usize> {
    let path = args.pgn.as_deref().expect("--resume requires --pgn");
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {} to resume the match", path.display()))?;
    let games = pgn::read(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let file = path.display();
    for (i, g) in games.iter().enumerate() {
        let n = i + 1;
        if g.tag("Round") != Some(n.to_string().as_str()) {
            bail!(
                "{file}: game {n} has round {:?}: resume needs this match's games in order, from round 1",
                g.tag("Round").unwrap_or("none")
            );
        }
        if !g.complete {
            bail!("{file}: game {n} is cut short (its moves do not end with its result): remove it, then resume");
        }
        let (start, a_first) = m.schedule(i);
        let (first, second) = if a_first {
            (&args.a, &args.b)
        } else {
            (&args.b, &args.a)
        };
        if g.tag(G::SEATS[0]) != Some(first.as_str()) || g.tag(G::SEATS[1]) != Some(second.as_str()) {
            bail!(
                "{file}: game {n} was {} against {}, not {first} against {second}: resume with the match's own --a and --b",
                g.tag(G::SEATS[0]).unwrap_or("?"),
                g.tag(G::SEATS[1]).unwrap_or("?")
            );
        }
        if g.tag("FEN") != Some(G::fen(start).as_str()) {
            bail!("{file}: game {n} started from another position than this match schedules: resume with the same --positions, --order and --seed");
        }
        let result = g.tag("Result").unwrap_or("none");
        let Some(winner) = pgn::winner_of(result) else {
            bail!("{file}: game {n} has result {result:?}, not 1-0, 0-1 or 1/2-1/2");
        };
        let a_seat = if a_first { Seat::First } else { Seat::Second };
        let plies = g.tag("PlyCount").and_then(|p| p.parse().ok()).unwrap_or(0);
        let ending = g.tag("Termination").unwrap_or("unknown");
        // Only the fixed endings are counted apart (forfeits, illegal moves, false claims).
        let kind = Ending::from_words(ending, None, None);
        summary.count(arena::result_of(winner, a_seat), plies, ending, kind);
    }
    if games.len() >= args.games {
        bail!(
            "{file} already holds {} games, all of the --games {}: nothing to resume",
            games.len(),
            args.games
        );
    }
    if let Some(t) = summary.sprt {
        if t.decide(&summary.tally.pairs).is_some() && games.len() % 2 == 0 {
            bail!(
                "{file}: the SPRT already decided after its {} games: nothing to resume",
                games.len()
            );
        }
    }
    Ok(games.len())
}
