//! The run report: one self-contained HTML page of a tuning run's folder, with charts drawn
//! as inline SVG by plotters. No scripts and nothing fetched: it opens from a file anywhere.
//!
//! It shows the steps (for the GA its generations: fitness, the adaptive rates, diversity,
//! speed, results; for SPSA and fitting runs each column of their steps), validation Elo
//! with its interval, each evolved parameter's path, the evolved piece-square
//! values as boards beside the base ones, the final weights against the base, and the
//! round robin when one was played.

use crate::game::{BoardPicture, Game};
use crate::games::{with_game, WithGame};
use crate::params::{LoadError, Params, Spec, Specs};
use crate::tune::config::Config;
use crate::tune::folder::{self as run, RunError, ValidationRow};
use crate::tune::method::Info;
use crate::tune::observe::{Chart, Observe, Stepped};
use crate::tune::runs::RunSummary;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{dir} is not a run folder: {reason}")]
    NotARun { dir: PathBuf, reason: String },
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Weights(#[from] LoadError),
    #[error("cannot read {path}: {reason}")]
    RoundRobin { path: PathBuf, reason: String },
    #[error("cannot draw the {chart} chart: {reason}")]
    Chart { chart: String, reason: String },
}

/// Everything the report shows, read from a run folder.
struct RunData {
    config: Config,
    specs: Specs,
    base: Params,
    /// The run's method, and the charts its view draws.
    method: &'static Info,
    charts: &'static [Chart],
    /// Each column of the method's rows against the step.
    steps: Vec<run::Column>,
    validations: Vec<ValidationRow>,
    /// The steps completed.
    done: usize,
    /// Each step's champion that the folder keeps, in step order (an archived run may keep
    /// only some).
    champions: Vec<(usize, Params)>,
    evolved: Vec<usize>,
    round_robin: Option<Vec<Vec<String>>>,
    /// How the game draws its piece-square parameters, if it has any.
    picture: Option<BoardPicture>,
}

/// Keeps the run's `report.html` up to date: written at the session's first step (so that
/// an early stop leaves one), then after every validation. A report that cannot be drawn
/// costs a warning line, never the run.
#[derive(Debug, Default)]
pub struct ReportWriter;

impl<R> Observe<R> for ReportWriter {
    fn step(&mut self, step: &mut Stepped<R>) -> Result<(), RunError> {
        if step.first || step.report.validation.is_some() {
            if let Err(e) = write(step.dir, None) {
                step.lines.push(format!("  warning: no report: {e}"));
            }
        }
        Ok(())
    }
}

/// The report of the run in `dir` as an HTML page.
pub fn render(dir: &Path) -> Result<String, ReportError> {
    let data = read(dir)?;
    let mut html = String::new();
    let name = escape(&data.config.name);
    // A page of a run under way reloads itself, so that a browser left open follows it.
    let running = crate::tune::folder::running(dir);
    let reload = if running.is_some() {
        "<meta http-equiv=\"refresh\" content=\"60\">"
    } else {
        ""
    };
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{reload}\
         <title>qitune run {name}</title><style>{STYLE}</style></head><body>\n\
         <h1>qitune run <code>{name}</code></h1>\n"
    );
    if let Some(pid) = running {
        let _ = writeln!(
            html,
            "<p class=\"live\">This run is under way (process {pid}): this page was written at \
             {} UTC, is rewritten after every validation, and reloads itself every minute.</p>",
            crate::clock::clock_now()
        );
    }
    summary(&mut html, &data);
    let _ = writeln!(
        html,
        "<h2>{}s</h2>\n<div class=\"charts\">",
        capitalised(data.method.unit)
    );
    let charts = step_charts(&data)?;
    for chart in charts {
        html.push_str(&chart);
    }
    html.push_str("</div>\n");
    validation_section(&mut html, &data)?;
    parameter_section(&mut html, &data)?;
    round_robin_section(&mut html, &data)?;
    html.push_str("</body></html>\n");
    Ok(html)
}

/// One page comparing the runs in `dirs`: their validation Elo against tuning games and
/// against hours on one chart each (a stage's curve begins with its earlier stages' where
/// they share its anchor), and a table of each run's best and last validated champions.
/// With `within`, only the validations within that many tuning games are drawn and chosen
/// from (the runs compared at one budget).
pub fn compare(dirs: &[PathBuf], within: Option<u64>) -> Result<String, ReportError> {
    let runs = summaries(dirs, within)?;
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>qitune runs compared</title><style>{STYLE}</style></head><body>\n\
         <h1>qitune runs compared</h1>\n<p class=\"note\">Each run's validations: its \
         champion against its anchor on held-out positions. Runs are comparable where they \
         share an anchor, positions and nodes.</p>\n<div class=\"charts\">\n"
    );
    // Short runs are drawn against minutes.
    let longest = runs
        .iter()
        .flat_map(RunSummary::points)
        .map(|c| c.2)
        .fold(0.0, f64::max);
    let (by_time, time_unit) = if longest < 2.0 {
        (curves(&runs, |c| 60.0 * c.2), "minutes")
    } else {
        (curves(&runs, |c| c.2), "hours")
    };
    html.push_str(&games_chart(&runs)?);
    html.push_str(&line_chart_over(
        &format!("{time_unit} of tuning"),
        &format!("Validation Elo against {time_unit}"),
        (720, 360),
        &by_time,
        Some(0.0),
        true,
    )?);
    html.push_str(
        "</div>\n<table><tr><th>run</th><th>method</th><th>game</th><th>steps</th><th>games</th>\
         <th>hours</th><th>best validated</th><th>last validated</th><th>state</th></tr>\n",
    );
    let champion = |v: &Option<ValidationRow>| {
        v.as_ref()
            .map_or("-".to_string(), |v| format!("step {}: {}", v.step, elo_text(v)))
    };
    for r in &runs {
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{} of {}</td><td>{}</td><td>{:.2}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&r.name),
            escape(&r.method),
            escape(&r.game),
            r.done,
            r.planned,
            r.games,
            r.seconds / 3600.0,
            champion(&r.best),
            champion(&r.last),
            format!("{:?}", r.state).to_lowercase()
        );
    }
    html.push_str("</table>\n</body></html>\n");
    Ok(html)
}

/// The chart of [`compare`] that draws the runs' validation Elo against tuning games, as
/// one standalone SVG image.
pub fn compare_svg(dirs: &[PathBuf], within: Option<u64>) -> Result<String, ReportError> {
    games_chart(&summaries(dirs, within)?)
}

/// The runs in `dirs` summed up, each named by its folder (a stage by its run's too), their
/// curves cut at `within` tuning games.
fn summaries(dirs: &[PathBuf], within: Option<u64>) -> Result<Vec<RunSummary>, ReportError> {
    let mut runs = Vec::new();
    for dir in dirs {
        let name = crate::tune::stages::display_name(dir);
        let summary = crate::tune::runs::summarise(dir, name)?;
        runs.push(match within {
            Some(games) => summary.within(games),
            None => summary,
        });
    }
    Ok(runs)
}

/// Each run's validation Elo against `x` of its curve points (tuning games, hours).
fn curves(runs: &[RunSummary], x: fn(&(ValidationRow, f64, f64)) -> f64) -> Vec<Series> {
    runs.iter()
        .zip(COLOURS.iter().cycle())
        .map(|(r, &color)| Series {
            name: r.name.clone(),
            color,
            points: r.points().filter_map(|c| Some((x(c), c.0.elo?))).collect(),
        })
        .collect()
}

fn games_chart(runs: &[RunSummary]) -> Result<String, ReportError> {
    line_chart_over(
        "tuning games",
        "Validation Elo against tuning games",
        (720, 360),
        &curves(runs, |c| c.1),
        Some(0.0),
        true,
    )
}

/// Writes the report of the run in `dir` to `out` (default `dir/report.html`), atomically.
pub fn write(dir: &Path, out: Option<&Path>) -> Result<PathBuf, ReportError> {
    let html = render(dir)?;
    let path = out.map_or_else(|| dir.join("report.html"), Path::to_path_buf);
    crate::fsutil::write_atomic(&path, html.as_bytes()).map_err(|source| RunError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:1500px;color:#222}\
    h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}\
    table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;\
    text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}\
    .charts{display:flex;flex-wrap:wrap;gap:8px}.small{display:flex;flex-wrap:wrap;gap:4px}\
    .live{background:#fff4ce;padding:.4em .8em;border-left:4px solid #e0a800}.up{color:#1a7f37}.down{color:#b42318}.note{color:#555;font-size:.9em}";

fn read(dir: &Path) -> Result<RunData, ReportError> {
    let not_a_run = |reason: String| ReportError::NotARun {
        dir: dir.to_path_buf(),
        reason,
    };
    let config_path = dir.join("config.json");
    let text = crate::fsutil::read_text(&config_path, crate::fsutil::MAX_JSON_BYTES)
        .map_err(|e| not_a_run(format!("cannot read {}: {e}", config_path.display())))?;
    let config: Config =
        serde_json::from_str(&text).map_err(|e| not_a_run(format!("{}: {e}", config_path.display())))?;
    let specs = crate::tune::subject::specs(&config)
        .map_err(|e| not_a_run(format!("{}: {e}", config_path.display())))?;
    let retired = crate::tune::subject::retired(&config);
    let base = match &config.base_weights {
        Some(path) => Params::load(Path::new(path), &config.game, &specs, retired)?,
        None => Params::defaults(&specs),
    };
    // What the run tunes, as its last champion names it (the patterns may name more today).
    let named = run::tuned_names(dir);
    let evolved = Config::chosen(named.as_deref().unwrap_or(&config.evolve), &specs)
        .map_err(|e| not_a_run(format!("{}: {e}", config_path.display())))?;
    let method = crate::tune::methods::info(&config.method)
        .map_err(|e| not_a_run(format!("{}: {e}", config_path.display())))?;
    let charts = crate::tune::methods::charts(&config.method)
        .map_err(|e| not_a_run(format!("{}: {e}", config_path.display())))?;
    let steps = run::step_columns(&dir.join(method.csv))?;
    let done: Vec<usize> = steps
        .first()
        .map(|(_, points)| points.iter().map(|&(x, _)| x as usize).collect())
        .unwrap_or_default();
    let validations = run::validations(dir)?;
    let mut champions = Vec::new();
    for &g in &done {
        if let Some(path) = run::find_champion(dir, g) {
            champions.push((g, Params::load(&path, &config.game, &specs, retired)?));
        }
    }
    let rr_path = dir.join("roundrobin.csv");
    let round_robin = if rr_path.exists() {
        let bad = |reason: String| ReportError::RoundRobin {
            path: rr_path.clone(),
            reason,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_path(&rr_path)
            .map_err(|e| bad(e.to_string()))?;
        let rows = reader
            .records()
            .map(|r| r.map(|r| r.iter().map(str::to_string).collect::<Vec<_>>()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(e.to_string()))?;
        Some(rows)
    } else {
        None
    };
    Ok(RunData {
        picture: picture_of(&config.game),
        config,
        specs,
        base,
        method,
        charts,
        steps,
        validations,
        done: done.len(),
        champions,
        evolved,
        round_robin,
    })
}

/// The game's picture of its piece-square parameters (none for a game qitune does not know).
fn picture_of(game: &str) -> Option<BoardPicture> {
    struct Picture;
    impl WithGame for Picture {
        type Output = Option<BoardPicture>;
        fn call<G: Game>(self) -> Option<BoardPicture> {
            G::PICTURE
        }
    }
    with_game(game, Picture).ok().flatten()
}

fn summary(html: &mut String, d: &RunData) {
    let c = &d.config;
    let column = |name: &str| {
        d.steps
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, p)| p.iter().map(|&(_, y)| y).sum::<f64>())
    };
    let games = column("games") as usize;
    let seconds = column("seconds");
    let done = d.done;
    let settings: Vec<String> = c
        .settings
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let shape = format!("{} ({})", c.method, settings.join(", "));
    let _ = writeln!(
        html,
        "<table><tr><th>game</th><td>{}</td></tr>\
         <tr><th>steps</th><td>{} of {}</td></tr>\
         <tr><th>method</th><td>{}</td></tr>\
         <tr><th>evolved</th><td>{} parameters ({})</td></tr>\
         <tr><th>base weights</th><td>{}</td></tr>\
         <tr><th>games, time</th><td>{games}, {:.0} s</td></tr></table>",
        escape(&c.game),
        done,
        c.generations,
        escape(&shape),
        d.evolved.len(),
        escape(&c.evolve.join(", ")),
        escape(c.base_weights.as_deref().unwrap_or("built-in")),
        seconds
    );
    if let Some(best) = run::best_validation(&d.validations) {
        let _ = writeln!(
            html,
            "<p>Best validated champion: {} {}, {} against the anchor on held-out \
             positions ({} games: +{} ={} -{}).</p>",
            d.method.unit,
            best.step,
            elo_text(best),
            best.games,
            best.wins,
            best.draws,
            best.losses
        );
    }
}

/// "+12.3 (95%: -4.0 to +28.6) Elo", or the bare score when Elo is undefined.
fn elo_text(v: &ValidationRow) -> String {
    match (v.elo, v.elo_low, v.elo_high) {
        (Some(e), Some(lo), Some(hi)) => format!("{e:+.1} Elo (95%: {lo:+.1} to {hi:+.1})"),
        _ => format!("score {:.3}", v.score),
    }
}

/// One line of a chart: a name, a colour and its points.
struct Series {
    name: String,
    color: RGBColor,
    points: Vec<(f64, f64)>,
}

/// The colours of a chart's lines, in order.
const COLOURS: [RGBColor; 6] = [BLUE, GREEN, RED, MAGENTA, CYAN, BLACK];

/// The method's charts of its rows; a method that names none gets one chart a column.
fn step_charts(d: &RunData) -> Result<Vec<String>, ReportError> {
    let column = |name: &str| d.steps.iter().find(|(n, _)| n == name).map(|(_, p)| p);
    if d.charts.is_empty() {
        return d
            .steps
            .iter()
            .map(|(name, points)| {
                let line = Series {
                    name: name.clone(),
                    color: BLUE,
                    points: points.clone(),
                };
                chart_unless_constant(d.method.unit, name, &[line])
            })
            .collect();
    }
    d.charts
        .iter()
        .map(|chart| {
            let lines: Vec<Series> = chart
                .lines
                .iter()
                .zip(COLOURS.iter().cycle())
                .map(|(&(label, name, per), &color)| {
                    let points = column(name).cloned().unwrap_or_default();
                    let points = match per.and_then(column) {
                        Some(whole) => points
                            .iter()
                            .zip(whole)
                            .map(|(&(x, y), &(_, w))| (x, y / w.max(1.0)))
                            .collect(),
                        None => points,
                    };
                    Series {
                        name: label.to_string(),
                        color,
                        points,
                    }
                })
                .collect();
            chart_unless_constant(d.method.unit, chart.title, &lines)
        })
        .collect()
}

/// The chart of `lines`, or where every line holds one value at every step (the games a
/// step, say) a sentence that says so: a flat line on a magnified axis shows nothing.
fn chart_unless_constant(unit: &str, title: &str, lines: &[Series]) -> Result<String, ReportError> {
    let flat = |s: &Series| s.points.len() > 1 && s.points.iter().all(|&(_, y)| y == s.points[0].1);
    if lines.is_empty() || !lines.iter().all(flat) {
        return line_chart(unit, title, (640, 300), lines, None);
    }
    let values: Vec<String> = lines
        .iter()
        .map(|s| format!("{} {}", escape(&s.name), s.points[0].1))
        .collect();
    Ok(format!(
        "<p class=\"constant\">{}: {} at every {unit}.</p>",
        escape(title),
        values.join(", ")
    ))
}

/// `word` with a capital first letter.
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn chart_error(chart: &str) -> impl Fn(String) -> ReportError + '_ {
    move |reason| ReportError::Chart {
        chart: chart.to_string(),
        reason,
    }
}

/// The x and y ranges that hold every point (and `extra` y values), padded a little.
fn bounds(series: &[Series], extra: &[f64]) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let points = series.iter().flat_map(|s| &s.points);
    let xs = points.clone().map(|p| p.0);
    let ys = points.map(|p| p.1).chain(extra.iter().copied());
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    if !x0.is_finite() {
        return (0.0..1.0, 0.0..1.0);
    }
    let pad = ((y1 - y0) * 0.08).max(1e-3 * y1.abs().max(1.0));
    (x0..x1.max(x0 + 1.0), y0 - pad..y1 + pad)
}

/// A line chart against the `unit` (a step, a generation) as an inline SVG; `reference`
/// draws a dashed horizontal line at that value.
fn line_chart(
    unit: &str,
    title: &str,
    size: (u32, u32),
    lines: &[Series],
    reference: Option<f64>,
) -> Result<String, ReportError> {
    line_chart_over(unit, title, size, lines, reference, false)
}

/// A line chart whose x axis is `x_desc`, starting at 0 with `from_zero`; lines of few points
/// mark them.
fn line_chart_over(
    x_desc: &str,
    title: &str,
    size: (u32, u32),
    lines: &[Series],
    reference: Option<f64>,
    from_zero: bool,
) -> Result<String, ReportError> {
    let err = chart_error(title);
    let (mut xr, yr) = bounds(lines, reference.as_slice());
    if from_zero {
        xr = 0.0..xr.end;
    }
    let small = size.0 < 400;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", if small { 13 } else { 17 }))
            .margin(8)
            .x_label_area_size(if small { 20 } else { 30 })
            .y_label_area_size(if small { 40 } else { 55 })
            .build_cartesian_2d(xr.clone(), yr)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .x_desc(if small { "" } else { x_desc })
            .x_labels(if small { 4 } else { 10 })
            .x_label_formatter(&|x| {
                if xr.end - xr.start < 20.0 {
                    format!("{x:.1}")
                } else {
                    whole(*x)
                }
            })
            .y_labels(if small { 4 } else { 8 })
            .draw()
            .map_err(|e| err(e.to_string()))?;
        if let Some(r) = reference {
            let dashed =
                DashedLineSeries::new([(xr.start, r), (xr.end, r)], 4, 4, BLACK.mix(0.5).stroke_width(1));
            chart.draw_series(dashed).map_err(|e| err(e.to_string()))?;
        }
        for s in lines {
            let color = s.color;
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))
                .map_err(|e| err(e.to_string()))?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
            if s.points.len() < 40 {
                let marks = s.points.iter().map(|&p| Circle::new(p, 3, color.filled()));
                chart.draw_series(marks).map_err(|e| err(e.to_string()))?;
            }
        }
        if lines.len() > 1 {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.3))
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}

fn validation_section(html: &mut String, d: &RunData) -> Result<(), ReportError> {
    html.push_str("<h2>Validation on held-out positions</h2>\n");
    let rows: Vec<&ValidationRow> = d.validations.iter().filter(|v| v.elo.is_some()).collect();
    if d.validations.is_empty() {
        html.push_str("<p class=\"note\">This run has no validation section.</p>\n");
        return Ok(());
    }
    if !rows.is_empty() {
        html.push_str(&elo_chart(d.method.unit, &rows)?);
    }
    let _ = writeln!(
        html,
        "<table><tr><th>{}</th><th>games</th><th>W</th><th>D</th><th>L</th>\
         <th>score</th><th>Elo (95%)</th><th>LOS</th></tr>",
        d.method.unit
    );
    for v in &d.validations {
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td>\
             <td>{}</td><td>{:.1}%</td></tr>",
            v.step,
            v.games,
            v.wins,
            v.draws,
            v.losses,
            v.score,
            elo_text(v),
            100.0 * v.los
        );
    }
    html.push_str("</table>\n");
    Ok(())
}

/// Validation Elo per step with its 95% interval as error bars.
fn elo_chart(unit: &str, rows: &[&ValidationRow]) -> Result<String, ReportError> {
    let title = "Champion against the anchor: Elo with 95% interval";
    let err = chart_error(title);
    let low = rows.iter().filter_map(|v| v.elo_low).fold(0.0, f64::min);
    let high = rows.iter().filter_map(|v| v.elo_high).fold(0.0, f64::max);
    let x1 = rows.iter().map(|v| v.step).max().unwrap_or(1) as f64;
    let pad = ((high - low) * 0.08).max(5.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 17))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..x1 + 1.0, low - pad..high + pad)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .x_desc(unit)
            .x_label_formatter(&|x| whole(*x))
            .y_desc("Elo")
            .draw()
            .map_err(|e| err(e.to_string()))?;
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, 0.0), (x1 + 1.0, 0.0)],
                4,
                4,
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(|e| err(e.to_string()))?;
        let bars = rows.iter().filter_map(|v| {
            let (e, lo, hi) = (v.elo?, v.elo_low?, v.elo_high?);
            Some(ErrorBar::new_vertical(v.step as f64, lo, e, hi, BLUE.filled(), 8))
        });
        chart.draw_series(bars).map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}

fn parameter_section(html: &mut String, d: &RunData) -> Result<(), ReportError> {
    let unit = d.method.unit;
    let Some((last_step, last)) = d.champions.last() else {
        return Ok(());
    };
    let group = |i: usize| {
        d.picture
            .and_then(|p| (p.squares)(&d.specs[i].name))
            .map(|s| s.group)
    };
    let (psts, scalars): (Vec<usize>, Vec<usize>) = d.evolved.iter().partition(|&&i| group(i).is_some());
    html.push_str("<h2>Evolved parameters</h2>\n");
    if !scalars.is_empty() {
        let _ = writeln!(
            html,
            "<p class=\"note\">Each {unit}'s champion; the dashed line is the base value.{}</p>\
             <div class=\"small\">",
            if d.champions.len() < d.done {
                format!(
                    " This folder keeps the champions of {} of its {} {unit}s; the lines join those.",
                    d.champions.len(),
                    d.done
                )
            } else {
                String::new()
            }
        );
        for &i in &scalars {
            let spec = &d.specs[i];
            let path = Series {
                name: String::new(),
                color: BLUE,
                points: d
                    .champions
                    .iter()
                    .map(|(g, p)| (*g as f64, p.values()[i] as f64))
                    .collect(),
            };
            html.push_str(&line_chart(
                unit,
                &spec.name,
                (300, 180),
                &[path],
                Some(d.base.values()[i] as f64),
            )?);
        }
        html.push_str("</div>\n");
    }
    if let (Some(picture), false) = (d.picture, psts.is_empty()) {
        let _ = writeln!(
            html,
            "<h3>Piece-square values: base and {unit} {last_step}</h3>\
             <p class=\"note\">{} Green above zero, red below.</p><div class=\"small\">",
            picture.note
        );
        let mut roles: Vec<&str> = psts.iter().filter_map(|&i| group(i)).collect();
        roles.dedup();
        for role in roles {
            // One colour scale for both boards of a role, so that they compare at a glance.
            let scale = [&d.base, last]
                .iter()
                .flat_map(|p| pst_cells(&picture, role, &d.specs, p))
                .map(|c| c.2.abs())
                .max()
                .unwrap_or(1)
                .max(1);
            for (label, params) in [("base", &d.base), ("evolved", last)] {
                html.push_str(&pst_board(&picture, role, label, &d.specs, params, scale)?);
            }
        }
        html.push_str("</div>\n");
    }
    html.push_str(
        "<h3>Final champion against the base</h3>\n<table><tr><th>parameter</th><th>base</th>\
         <th>final</th><th>change</th><th>range</th></tr>\n",
    );
    let mut order: Vec<usize> = d.evolved.clone();
    // The largest moves relative to the range first.
    let moved = |i: usize| {
        let s = &d.specs[i];
        (last.values()[i] - d.base.values()[i]).abs() as f64 / (s.max - s.min).max(1) as f64
    };
    order.sort_by(|&a, &b| moved(b).total_cmp(&moved(a)));
    for i in order {
        let s = &d.specs[i];
        let (base, fin) = (d.base.values()[i], last.values()[i]);
        let class = match fin.cmp(&base) {
            std::cmp::Ordering::Greater => "up",
            std::cmp::Ordering::Less => "down",
            std::cmp::Ordering::Equal => "",
        };
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{base}</td><td>{fin}</td><td class=\"{class}\">{:+}</td>\
             <td>[{}, {}]</td></tr>",
            s.name,
            fin - base,
            s.min,
            s.max
        );
    }
    html.push_str("</table>\n");
    Ok(())
}

/// A group's piece-square values on the whole board: (file, rank, value).
fn pst_cells(picture: &BoardPicture, role: &str, specs: &[Spec], params: &Params) -> Vec<(u32, u32, i32)> {
    let mut cells = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        if let Some(place) = (picture.squares)(&s.name) {
            if place.group == role {
                let v = params.values()[i];
                cells.extend(place.squares.into_iter().map(|(file, rank)| (file, rank, v)));
            }
        }
    }
    cells
}

/// A group's piece-square values as a board, coloured by sign and by size against `scale`.
fn pst_board(
    picture: &BoardPicture,
    role: &str,
    label: &str,
    specs: &[Spec],
    params: &Params,
    scale: i32,
) -> Result<String, ReportError> {
    let title = format!("{role}: {label}");
    let err = chart_error(&title);
    let cells = pst_cells(picture, role, specs, params);
    let scale = scale as f64;
    let (files, ranks) = (picture.files, picture.ranks);
    let mut svg = String::new();
    {
        let size = (14 + 24 * files, 30 + 24 * ranks);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let root = root
            .titled(&title, ("sans-serif", 13))
            .map_err(|e| err(e.to_string()))?;
        let (w, h) = (24, 24);
        for file in 0..files {
            for rank in 0..ranks {
                let (x, y) = (7 + file as i32 * w, 4 + (ranks - 1 - rank) as i32 * h);
                let cell = cells.iter().find(|c| c.0 == file && c.1 == rank);
                let fill = match cell {
                    Some(&(_, _, v)) => {
                        let t = (v.abs() as f64 / scale).min(1.0);
                        let (r, g, b) = if v >= 0 { (26, 127, 55) } else { (180, 35, 24) };
                        RGBColor(r, g, b).mix(0.15 + 0.75 * t)
                    }
                    None => RGBColor(238, 238, 238).mix(1.0),
                };
                root.draw(&Rectangle::new([(x, y), (x + w - 1, y + h - 1)], fill.filled()))
                    .map_err(|e| err(e.to_string()))?;
                if let Some(&(_, _, v)) = cell {
                    let style = ("sans-serif", 10).into_font().color(&BLACK);
                    root.draw(&Text::new(v.to_string(), (x + 3, y + 7), style))
                        .map_err(|e| err(e.to_string()))?;
                }
            }
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}

fn round_robin_section(html: &mut String, d: &RunData) -> Result<(), ReportError> {
    let Some(rows) = &d.round_robin else {
        return Ok(());
    };
    html.push_str("<h2>Round robin</h2>\n<table>\n");
    for (k, row) in rows.iter().enumerate() {
        let cell = if k == 0 { "th" } else { "td" };
        html.push_str("<tr>");
        for v in row {
            let _ = write!(html, "<{cell}>{}</{cell}>", escape(v));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</table>\n");
    // Ratings with their intervals: the last two columns of each player's row.
    let mut ratings = Vec::new();
    for row in rows.iter().skip(1) {
        let n = row.len();
        if n >= 3 {
            if let (Ok(r), Ok(e)) = (row[n - 2].parse::<f64>(), row[n - 1].parse::<f64>()) {
                ratings.push((row[0].clone(), r, e));
            }
        }
    }
    if !ratings.is_empty() {
        html.push_str(&ratings_chart(&ratings)?);
    }
    Ok(())
}

/// Round-robin ratings with 95% error bars, one row per player, best first.
fn ratings_chart(ratings: &[(String, f64, f64)]) -> Result<String, ReportError> {
    let title = "Round-robin ratings (maximum likelihood, 95% interval)";
    let err = chart_error(title);
    let low = ratings.iter().map(|r| r.1 - r.2).fold(f64::INFINITY, f64::min);
    let high = ratings
        .iter()
        .map(|r| r.1 + r.2)
        .fold(f64::NEG_INFINITY, f64::max);
    let pad = ((high - low) * 0.05).max(5.0);
    let n = ratings.len();
    let mut svg = String::new();
    {
        let height = 70 + 26 * n as u32;
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 17))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(110)
            .build_cartesian_2d(low - pad..high + pad, -0.5..n as f64 - 0.5)
            .map_err(|e| err(e.to_string()))?;
        let names: Vec<String> = ratings.iter().map(|r| r.0.clone()).collect();
        chart
            .configure_mesh()
            .x_desc("Elo")
            .y_labels(n)
            .y_label_formatter(&|y| {
                let k = y.round();
                if (y - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < n {
                    names[n - 1 - k as usize].clone()
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(|e| err(e.to_string()))?;
        let bars = ratings.iter().enumerate().map(|(k, (_, r, e))| {
            ErrorBar::new_horizontal((n - 1 - k) as f64, r - e, *r, r + e, RED.filled(), 8)
        });
        chart.draw_series(bars).map_err(|e| err(e.to_string()))?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(svg)
}

/// A step axis label: whole numbers only.
fn whole(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        String::new()
    }
}

/// Text made safe for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_column_is_a_sentence_not_a_chart() {
        let series = |name: &str, ys: &[f64]| Series {
            name: name.into(),
            color: BLUE,
            points: ys.iter().enumerate().map(|(i, &y)| (i as f64 + 1.0, y)).collect(),
        };
        let flat = chart_unless_constant("step", "Games a step", &[series("games", &[480.0, 480.0, 480.0])])
            .unwrap();
        assert!(
            flat.contains("games 480 at every step") && !flat.contains("<svg"),
            "{flat}"
        );
        let moving = chart_unless_constant("step", "Elo", &[series("elo", &[1.0, 5.0])]).unwrap();
        assert!(moving.starts_with("<svg"), "{moving}");
        // One point is no run of constants yet: it is drawn.
        assert!(chart_unless_constant("step", "Elo", &[series("elo", &[3.0])])
            .unwrap()
            .starts_with("<svg"));
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_chart_is_an_svg_with_its_title_and_labels() {
        let s = Series {
            name: "max".to_string(),
            color: BLUE,
            points: vec![(1.0, 3.0), (2.0, 5.0), (3.0, 4.0)],
        };
        let svg = line_chart("generation", "Fitness", (640, 300), &[s], Some(4.0)).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("Fitness") && svg.contains("generation"));
        assert!(
            svg.contains("<polyline") || svg.contains("<path"),
            "no line drawn"
        );
    }
}
