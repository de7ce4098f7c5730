//! A cosine setting: a number above 0 and at most 1, or a refusal that says so.

/// `value` as a cosine threshold.
pub fn parse(value: &str) -> Result<f32, String> {
    match value.parse::<f32>() {
        Ok(cosine) if cosine > 0.0 && cosine <= 1.0 => Ok(cosine),
        _ => Err(format!(
            "`{value}` is not a cosine between 0 and 1: write one such as 0.759"
        )),
    }
}
