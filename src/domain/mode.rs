//! What a memory request asks for: save, load, or the profile.

use utoipa::ToSchema;

use super::ValidationError;

/// What a memory request asks for: `save` stores a summary, `load` returns saved ones,
/// `profile` reads or rewrites the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum Mode {
    Save,
    Load,
    Profile,
}

impl Mode {
    /// `save`, `load` or `profile`, in any case: `Save` from a person typing a URL means it.
    pub fn parse(raw: Option<&str>) -> Result<Self, ValidationError> {
        let raw = raw.unwrap_or_default();
        let is = |mode: &str| raw.eq_ignore_ascii_case(mode);
        if raw.is_empty() {
            Err(ValidationError::MissingMode)
        } else if is("save") {
            Ok(Self::Save)
        } else if is("load") {
            Ok(Self::Load)
        } else if is("profile") {
            Ok(Self::Profile)
        } else {
            Err(ValidationError::UnknownMode)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_modes_in_any_case_and_nothing_else() {
        assert_eq!(Mode::parse(Some("save")), Ok(Mode::Save));
        assert_eq!(Mode::parse(Some("load")), Ok(Mode::Load));
        assert_eq!(Mode::parse(Some("profile")), Ok(Mode::Profile));
        assert_eq!(Mode::parse(None), Err(ValidationError::MissingMode));
        assert_eq!(Mode::parse(Some("")), Err(ValidationError::MissingMode));
        assert_eq!(Mode::parse(Some("Save")), Ok(Mode::Save));
        assert_eq!(Mode::parse(Some("LOAD")), Ok(Mode::Load));
        assert_eq!(
            Mode::parse(Some("saves")),
            Err(ValidationError::UnknownMode)
        );
        assert_eq!(
            Mode::parse(Some("delete")),
            Err(ValidationError::UnknownMode)
        );
    }
}
