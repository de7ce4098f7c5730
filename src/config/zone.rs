//! The time zone setting: an IANA name, or a refusal that shows what one looks like.

use chrono_tz::Tz;

/// `value` as a time zone.
pub fn parse(value: &str) -> Result<Tz, String> {
    value.parse().map_err(|_| {
        format!(
            "`{value}` is not an IANA time zone: write one such as Asia/Tokyo, America/New_York \
             or UTC"
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::config::Cli;
    use clap::Parser;

    #[test]
    fn an_unknown_zone_is_refused_with_examples() {
        let err = Cli::try_parse_from(["kioku", "--timezone", "Tokyo"]).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("Asia/Tokyo") && message.contains("UTC"),
            "{message}"
        );
    }
}
