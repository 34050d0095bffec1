//! One run, the pipe from end to end: state (the last run's, loaded) → walk → decide (scan
//! each page, then the URLs of --add-urls) → sitemap → publish, or check. Each stage takes
//! its own settings.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::decide::lastmod::Churn;
use crate::decide::{self, Decider};
use crate::io::atomic::{Publishing, Temp, Written, dir_of};
use crate::outputs::{Destination, Files, Format};
use crate::publish::state::NewState;
use crate::report::{self, Report, Verbosity, Warning};
use crate::scan::head;
use crate::sitemap::foreign::{self, StartPage};
use crate::sitemap::{self, Collector};
use crate::state::{self, Found};
use crate::summary::{self, Summary};
use crate::walk::{self, Walked};
use crate::{check, publish};

/// Everything a run needs, stage by stage.
#[derive(Debug)]
pub struct Settings {
    /// --state and what goes with it.
    pub state: Option<state::Settings>,
    pub walk: walk::Settings,
    pub decide: decide::Settings,
    pub sitemap: sitemap::Settings,
    pub publish: publish::Settings,
    /// --check: compare with the files on disk, write nothing.
    pub check: bool,
    /// --summary-json: where the run's counts go.
    pub summary_json: Option<summary::To>,
    pub verbosity: Verbosity,
    pub strict: bool,
    /// Threads that read directories and pages (-j).
    pub jobs: usize,
}

pub fn run(settings: &Settings) -> Result<()> {
    let mut report = Report::new(settings.verbosity, settings.strict);
    let run = stages(settings, &mut report);
    // However the run ended, the warnings shown only in part are counted out.
    report.finish_warnings();
    run
}

/// The head of a sub-build's start page, read as a page's head is (a long page is no
/// damaged one), for the sitemap's `foreign`.
fn start_page(file: File) -> std::io::Result<StartPage> {
    let mut page = Vec::new();
    file.take(head::HEAD_CAP as u64).read_to_end(&mut page)?;
    let head = head::parse(&page);
    Ok(StartPage {
        noindex: head.noindex,
        canonicals: head.canonicals,
    })
}

fn stages(settings: &Settings, report: &mut Report) -> Result<()> {
    if !settings.check {
        publish::remove_leftovers(temp_dirs(settings), report)?;
    }
    foreign_stylesheet(settings, report)?;
    let (found, mut new_state) = load_state(settings, report)?;
    // Read before the walk: what cannot be is said first.
    let foreign = foreign::entries(&settings.sitemap.foreign, &start_page, report)?;
    let Collected {
        collector,
        collected,
        churn,
    } = collect(settings, found.as_ref(), new_state.as_mut(), report)?;
    if collected == 0 && foreign.is_empty() {
        drop(collector);
        return nothing_listed(settings, report);
    }
    let churn_stop = churn_stop(settings, churn.as_ref());
    // --check shows the differences, with the churn stop among them.
    if let (Some(stop), false) = (&churn_stop, settings.check) {
        bail!("{stop}");
    }
    let done = collector.finish(&settings.sitemap, report)?;
    let shards = done.iter().map(Vec::len).sum();
    // Two runs on one output take turns from here to the end of publishing: the names the
    // index gives its sitemaps depend on the index on disk, which the other run may replace.
    let _turn = match (&settings.sitemap.destination, settings.check) {
        (Destination::File(files), false) => Some(Publishing::lock(files.dir())?),
        _ => None,
    };
    let outputs = sitemap::arrange(&settings.sitemap, done, &foreign)?;
    let Destination::File(files) = &settings.sitemap.destination else {
        return preview(outputs, collected, churn, report);
    };
    let format = settings.sitemap.format;
    // robots.txt is read now, so that one that cannot be taken stops the run unchanged.
    let robots = publish::plan_robots(&settings.publish, files, format, shards, report)?;
    if settings.check {
        let robots = robots.as_ref().filter(|plan| plan.new.is_some());
        let robots = robots.map(|plan| plan.path.as_path());
        return check::compare(files, outputs, robots, churn_stop, report);
    }
    let wrote_robots = robots.is_some();
    let mut companions = match new_state {
        Some(new) => new.finish(&settings.publish.base)?,
        None => Vec::new(),
    };
    companions.extend(publish::plan_key_file(&settings.publish)?);
    companions.extend(publish::plan_stylesheet(&settings.publish)?);
    let place = place(files, format, shards, foreign.len());
    // Known before anything is published, so that the summary goes out with the sitemap.
    let summary = settings.summary_json.as_ref().map(|to| {
        let robots = robots.as_ref().is_some_and(|plan| plan.new.is_some());
        let files_written = outputs.len() + companions.len() + usize::from(robots);
        (
            to,
            summary_of(report, collected, churn.as_ref(), &place, files_written),
        )
    });
    if let Some((summary::To::File(path), summary)) = &summary {
        companions.push((summary.write(path)?, path.clone()));
    }
    publish::commit(files, (format, shards), outputs, companions, robots, report)?;
    if format == Format::Txt && shards > 1 && !wrote_robots {
        report.note("a text sitemap has no index: list each file in robots.txt (--robots)");
    }
    if let Some((summary::To::Stdout, summary)) = &summary {
        summary.print()?;
    }
    report.summary(collected, &place, churn);
    Ok(())
}

/// Why --max-churn stops the run, if it does.
fn churn_stop(settings: &Settings, churn: Option<&Churn>) -> Option<anyhow::Error> {
    let max_churn = settings.state.as_ref().and_then(|s| s.max_churn);
    churn
        .zip(max_churn)
        .and_then(|(churn, limit)| churn.check(limit).err())
}

/// A preview on standard output: no state, no robots.txt.
fn preview(
    outputs: Vec<(PathBuf, Written<Temp>)>,
    collected: u64,
    churn: Option<Churn>,
    report: &mut Report,
) -> Result<()> {
    for (path, written) in outputs {
        written.publish_at(&path)?;
    }
    report.summary(collected, "to standard output", churn);
    Ok(())
}

/// What --summary-json says, known before anything is published so that it goes out with
/// the sitemap.
fn summary_of<'c>(
    report: &Report,
    collected: u64,
    churn: Option<&'c Churn>,
    place: &str,
    files_written: usize,
) -> Summary<'c> {
    Summary {
        listed: collected,
        left_out: report.left_out_by_cause(),
        added_urls: report.added_urls(),
        churn,
        files_written: files_written as u64,
        line: report.summary_line(collected, place, churn),
    }
}

/// The sitemap's entries, collected from the pages as the walk finds them and decide
/// decides them, with what `--state` records of each written into `new_state`.
fn collect<'s>(
    settings: &'s Settings,
    found: Option<&Found>,
    mut new_state: Option<&mut NewState>,
    report: &mut Report,
) -> Result<Collected<'s>> {
    let mut decider = Decider::new(&settings.decide, found, report)?;
    // Without heads or locales there are no alternates to check, so the URLs can go straight
    // into the sitemap.
    let mut collector = Collector::new(&settings.sitemap, settings.decide.read_html)?;
    let mut collected: u64 = 0;
    let planner = decider.planner();
    // Events stay in their place among the pages, for the report.
    walk::visit(
        &settings.walk,
        settings.jobs,
        &planner,
        report,
        |walked, report| {
            let prepared = match walked {
                Walked::Page(prepared) => prepared,
                Walked::Event(event) => return event.report(report),
            };
            if let Some(decided) = decider.decide(prepared, report)? {
                if let (Some(new), Some(recorded)) = (&mut new_state, &decided.recorded) {
                    new.record(recorded, &decided.entry.loc)?;
                }
                collector.push(decided.entry)?;
                collected += 1;
                report.progress(collected);
            }
            Ok(())
        },
    )?;
    decider.added_entries(report, |decided, report| {
        if let (Some(new), Some(recorded)) = (&mut new_state, &decided.recorded) {
            new.record(recorded, &decided.entry.loc)?;
        }
        collector.push(decided.entry)?;
        collected += 1;
        report.added_url();
        Ok(())
    })?;
    decider.finish(report)?;

    Ok(Collected {
        collector,
        collected,
        churn: decider.churn(),
    })
}

/// A run that found nothing to list: every page noindex (see `all_noindex`), or a mistake
/// (an empty sitemap is not valid).
fn nothing_listed(settings: &Settings, report: &mut Report) -> Result<()> {
    if report.only_noindex() {
        return all_noindex(settings, report);
    }
    bail!(
        "no pages in {} ({} left out); an empty sitemap is not valid\n\
         hint: check DIR and --include, or run with -v to see what was left out",
        settings.walk.root.display(),
        report::count(report.left_out_count(), "file")
    );
}

/// A run whose pages all say noindex (a staging deploy, an old version's, Docusaurus's
/// `noIndex: true`): a deliberate state, not a mistake. No sitemap, and none of an earlier
/// run's left; the state stays as it was. `--check` finds a difference while one is there.
fn all_noindex(settings: &Settings, report: &mut Report) -> Result<()> {
    let root = settings.walk.root.display();
    let noindex = report::count(report.noindex_count(), "page");
    let Destination::File(files) = &settings.sitemap.destination else {
        report.note(format_args!(
            "no sitemap: every page in {root} is noindex ({noindex})"
        ));
        return Ok(());
    };
    if settings.check {
        if std::fs::symlink_metadata(&files.path).is_ok() {
            bail!(
                "{} differs: every page in {root} is noindex ({noindex}), and a run would \
                 remove it",
                files.path.display()
            );
        }
        report.note(format_args!(
            "no sitemap: every page in {root} is noindex ({noindex})"
        ));
        return Ok(());
    }
    let _turn = Publishing::lock(files.dir())?;
    let removed = publish::withdraw(files, report)?;
    report.note(format_args!(
        "no sitemap: every page in {root} is noindex ({noindex}){}",
        if removed {
            format!("; removed the earlier run's {}", files.path.display())
        } else {
            String::new()
        }
    ));
    Ok(())
}

/// The pages listed, in the sitemap being written, and the churn against the state.
struct Collected<'s> {
    collector: Collector<'s>,
    collected: u64,
    churn: Option<Churn>,
}

/// Warns of a stylesheet that browsers will not apply.
fn foreign_stylesheet(settings: &Settings, report: &mut Report) -> Result<()> {
    if let Some(href) = &settings.sitemap.stylesheet
        && let Some(origin) = settings.publish.base.foreign_origin(href)
    {
        report.warn(
            Warning::Run,
            format_args!(
                "--xsl {href} is on {origin}, and browsers apply a stylesheet only from the \
                 sitemap's own origin"
            ),
            "they will show the sitemap as plain XML (put the stylesheet on the site, or use \
             --write-xsl)",
        )?;
    }
    Ok(())
}

/// The state of the last run, loaded before the walk, and the new state begun beside the
/// state file; None without --state (and no new state when the run writes none).
fn load_state(
    settings: &Settings,
    report: &mut Report,
) -> Result<(Option<Found>, Option<NewState>)> {
    let Some(state) = &settings.state else {
        return Ok((None, None));
    };
    let found = state::load(state, &settings.decide.base, report)?;
    let new = NewState::start(state, &found.state)?;
    Ok((Some(found), new))
}

/// Where our temp files are made, and killed runs may have left theirs: DIR, the output's
/// directory, the state's, the summary's.
fn temp_dirs(settings: &Settings) -> Vec<PathBuf> {
    let mut dirs = vec![settings.walk.root.clone()];
    if let Destination::File(files) = &settings.sitemap.destination {
        dirs.push(files.dir().to_path_buf());
    }
    if let Some(state) = &settings.state {
        dirs.push(dir_of(&state.path).to_path_buf());
    }
    if let Some(summary::To::File(path)) = &settings.summary_json {
        dirs.push(dir_of(path).to_path_buf());
    }
    dirs
}

/// Where the summary says the URLs went, beside the `foreign` sitemaps the index lists.
fn place(files: &Files, format: Format, shards: usize, foreign: usize) -> String {
    if files.indexed() {
        let sitemaps = report::count(shards as u64, "sitemap");
        let others = match foreign {
            0 => String::new(),
            n => format!(" (with {} of others)", report::count(n as u64, "sitemap")),
        };
        return format!("in {sitemaps} indexed by {}{others}", files.path.display());
    }
    if shards == 1 {
        return format!("to {}", files.path.display());
    }
    match format {
        Format::Xml => format!("in {shards} sitemaps indexed by {}", files.path.display()),
        Format::Txt => format!(
            "in {shards} text sitemaps {} … {}",
            files.shard_path(1).display(),
            files.shard_path(shards).display()
        ),
    }
}
