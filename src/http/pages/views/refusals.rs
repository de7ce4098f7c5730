//! What the memory page tells a person when a memory operation refuses: one sentence per error
//! code, in the page's language. The API's messages are written for a model (they name
//! parameters to change); a person on the page gets these instead.

use crate::error_code::ErrorCode;
use crate::http::pages::Text;

/// The sentence for `code` in `t`'s language.
pub fn refusal(t: &'static Text, code: ErrorCode) -> &'static str {
    if code == ErrorCode::ProfileConflict {
        return t.app.profile_conflict;
    }
    match t.lang {
        "ja" => ja(code),
        _ => en(code),
    }
}

fn en(code: ErrorCode) -> &'static str {
    use ErrorCode::*;
    match code {
        QueryTooLong => "That search is too long. Search with fewer words.",
        InvalidFilter => "That page of your memory could not be shown. Go back and try again.",
        BlankProfile => "The profile is empty. Write something, or forget the profile instead.",
        ProfileTooLong => "The profile is too long. Shorten it and save again.",
        ProfileControlCharacter => {
            "The profile holds a character that cannot be kept. Remove it and save again."
        }
        UnknownProfileVersion => {
            "That earlier version of the profile is no longer kept. The current profile is shown."
        }
        InvalidThreadId | MissingThreadId => "That thread could not be found.",
        NothingToForget => "That was forgotten already.",
        EntryTooLarge => "That is too large to keep in one thread.",
        BodyTooLarge => "That form was larger than this page takes. Shorten what you typed.",
        BodyTimeout => "That form took too long to arrive. Send it again.",
        RateLimited => "Too many requests for this memory. Wait a minute and try again.",
        StoreUnavailable => "Your memory cannot be reached right now. Try again in a few seconds.",
        _ => "That could not be done. Go back and try again.",
    }
}

fn ja(code: ErrorCode) -> &'static str {
    use ErrorCode::*;
    match code {
        QueryTooLong => "検索する言葉が長すぎます。言葉を減らして検索してください。",
        InvalidFilter => "この部分の記憶は表示できませんでした。戻ってもう一度お試しください。",
        BlankProfile => {
            "プロフィールが空です。内容を書くか、プロフィールを忘れる操作をしてください。"
        }
        ProfileTooLong => "プロフィールが長すぎます。短くしてから保存してください。",
        ProfileControlCharacter => {
            "プロフィールに保存できない文字が含まれています。取り除いてから保存してください。"
        }
        UnknownProfileVersion => {
            "その以前の版のプロフィールはもう残っていません。現在のプロフィールを表示しています。"
        }
        InvalidThreadId | MissingThreadId => "そのスレッドは見つかりませんでした。",
        NothingToForget => "それはすでに忘れられています。",
        EntryTooLarge => "1 つのスレッドに保存するには大きすぎます。",
        BodyTooLarge => "送られたフォームが大きすぎます。入力した内容を短くしてください。",
        BodyTimeout => "フォームの送信に時間がかかりすぎました。もう一度送ってください。",
        RateLimited => {
            "この記憶へのリクエストが多すぎます。1 分ほど待ってからもう一度お試しください。"
        }
        StoreUnavailable => "いま記憶に接続できません。数秒後にもう一度お試しください。",
        _ => "この操作はできませんでした。戻ってもう一度お試しください。",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::pages::text;

    #[test]
    fn each_language_has_its_own_sentence() {
        let code = ErrorCode::UnknownProfileVersion;
        assert!(refusal(&text::EN, code).starts_with("That earlier version"));
        assert!(refusal(&text::JA, code).contains("以前の版"));
        assert_ne!(
            refusal(&text::EN, code),
            refusal(&text::EN, ErrorCode::BlankProfile)
        );
    }
}
