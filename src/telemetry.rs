//! Logs: readable text locally, or one JSON object per line in the shape Cloud Logging reads
//! (<https://cloud.google.com/logging/docs/structured-logging>). Never a token or a summary.

use std::fmt;
use std::io::IsTerminal;

use serde::Serialize;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::{EnvFilter, fmt as subscriber_fmt};

use crate::config::LogFormat;

/// Event fields named `httpRequest.<key>` are gathered into Cloud Logging's `httpRequest`.
const HTTP_REQUEST_PREFIX: &str = "httpRequest.";
/// Cloud Logging links an entry to its trace through this field.
const TRACE_FIELD: &str = "logging.googleapis.com/trace";

/// What is logged unless `RUST_LOG` says otherwise: kioku's own lines, and only warnings of
/// the MCP SDK, whose info lines (one set per stateless request) add nothing to the request
/// log.
const DEFAULT_FILTER: &str = "info,rmcp=warn";

/// The MCP SDK's events carry what a client sent (a request's id, a tool's name, its `Host`
/// and `Origin` headers, the error it provoked), so only where they were raised is logged.
const SDK_TARGET: &str = "rmcp";
const WITHHELD: &str =
    "the MCP SDK reported this; its details are withheld, as they may hold what a client sent";

/// Installs the global subscriber. `RUST_LOG` adjusts levels (default [`DEFAULT_FILTER`]).
pub fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let builder = subscriber_fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal());
    // A second call (as in tests that start several apps) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder
            .event_format(Withheld(subscriber_fmt::format()))
            .try_init(),
        LogFormat::Json => builder.event_format(Withheld(CloudLogging)).try_init(),
    };
}

/// Whether `event` is the MCP SDK's, whose details are not logged.
fn from_the_sdk(event: &Event<'_>) -> bool {
    let target = event.metadata().target();
    target == SDK_TARGET || target.starts_with("rmcp::")
}

/// Where an event was raised, the one detail of the SDK's that is logged.
fn raised_at(event: &Event<'_>) -> String {
    let meta = event.metadata();
    format!(
        "{}:{}",
        meta.file().unwrap_or("?"),
        meta.line().unwrap_or_default()
    )
}

/// A format that writes the MCP SDK's events without their message and fields, and every
/// other event as `F` does.
struct Withheld<F>(F);

impl<S, N, F> FormatEvent<S, N> for Withheld<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N> + SdkLine,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        match from_the_sdk(event) {
            true => self.0.sdk_line(writer, event),
            false => self.0.format_event(ctx, writer, event),
        }
    }
}

/// How a format writes an MCP SDK event, withheld.
trait SdkLine {
    fn sdk_line(&self, writer: Writer<'_>, event: &Event<'_>) -> fmt::Result;
}

impl<L, T> SdkLine for subscriber_fmt::format::Format<L, T> {
    fn sdk_line(&self, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let meta = event.metadata();
        let time = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.6fZ");
        let at = raised_at(event);
        writeln!(
            writer,
            "{time} {:>5} {}: {WITHHELD} ({at})",
            meta.level(),
            meta.target()
        )
    }
}

impl SdkLine for CloudLogging {
    fn sdk_line(&self, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let meta = event.metadata();
        let line = serde_json::json!({
            "severity": severity(*meta.level()),
            "time": chrono::Utc::now().to_rfc3339(),
            "target": meta.target(),
            "message": WITHHELD,
            "raised_at": raised_at(event),
        });
        writeln!(writer, "{line}")
    }
}

/// The JSON line format.
struct CloudLogging;

impl<S, N> FormatEvent<S, N> for CloudLogging
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        let mut fields = JsonFields::default();
        event.record(&mut fields);
        let mut line = format!(
            r#"{{"severity":"{}","time":"{}","target":"#,
            severity(*meta.level()),
            chrono::Utc::now().to_rfc3339(),
        )
        .into_bytes();
        push_json(&mut line, meta.target());
        if let Some(http_request) = fields.http_request.strip_prefix(b",") {
            line.extend_from_slice(br#","httpRequest":{"#);
            line.extend_from_slice(http_request);
            line.push(b'}');
        }
        line.extend_from_slice(&fields.other);
        line.push(b'}');
        let line = String::from_utf8(line).expect("serde_json writes UTF-8");
        writeln!(writer, "{line}")
    }
}

fn severity(level: Level) -> &'static str {
    match level {
        Level::ERROR => "ERROR",
        Level::WARN => "WARNING",
        Level::INFO => "INFO",
        Level::DEBUG | Level::TRACE => "DEBUG",
    }
}

/// An event's fields as JSON members, each after a comma: those named `httpRequest.<key>`
/// apart, as `<key>`.
#[derive(Default)]
struct JsonFields {
    http_request: Vec<u8>,
    other: Vec<u8>,
}

impl JsonFields {
    fn put(&mut self, field: &Field, value: impl Serialize) {
        let (members, key) = match field.name().strip_prefix(HTTP_REQUEST_PREFIX) {
            Some(key) => (&mut self.http_request, key),
            None if field.name() == "trace" => (&mut self.other, TRACE_FIELD),
            None => (&mut self.other, field.name()),
        };
        members.push(b',');
        push_json(members, key);
        members.push(b':');
        push_json(members, value);
    }
}

/// Appends `value` as JSON.
fn push_json(line: &mut Vec<u8>, value: impl Serialize) {
    serde_json::to_writer(line, &value).expect("a log field serializes");
}

impl Visit for JsonFields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.put(field, format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, value);
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, value);
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, value);
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, value);
    }
}
