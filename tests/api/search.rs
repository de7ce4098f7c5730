//! A question in the person's own words finds the memory it is about, over HTTP and MCP, on
//! every store, and each result says which terms it matched.

use kioku::config::StoreKind;
use serde_json::Value;
use serde_json::json;

use crate::helpers::on_both_stores;
use crate::helpers::{Fresh, ok_json, spawn_fresh};
use crate::mcp::{call_tool, structured};

on_both_stores!(a_question_as_asked_finds_its_memory_over_http_and_mcp,);

const TRIP: &str = "Planned the autumn trip: the train to Kyoto on 14 October, two nights near the \
                    Kamo river, and a tea ceremony booked for the second afternoon.";
const DESK: &str = "Compared standing desks; ordered the oak one, delivery in three weeks.";
const MOVE: &str = "来月から東京都の新しいアパートに引っ越す予定。荷造りは週末にまとめてやる。";

/// A question longer than keywords: the old search's twenty-word limit refused it.
const QUESTION: &str = "Can you remind me what we decided about the train and the hotel for my \
                        Kyoto trip in October, and whether I booked anything for the afternoons \
                        while I am there with my sister and her two children this year?";

async fn a_question_as_asked_finds_its_memory_over_http_and_mcp(store: StoreKind) {
    let Fresh { app, token, .. } = spawn_fresh(store, |_| {}).await;
    let mut ids = Vec::new();
    for summary in [TRIP, DESK, MOVE] {
        ids.push(app.save(&token, None, summary).await["thread_id"].clone());
    }
    for (question, thread, term) in [
        (QUESTION, &ids[0], "Kyoto"),
        ("東京への引っ越しはいつだっけ？", &ids[2], "東京"),
    ] {
        let query = [("mode", "load"), ("q", question)];
        let http = ok_json(app.get(Some(&token), &query).send().await.unwrap()).await;
        assert_eq!(http["status"], "found", "{store:?}: {http}");
        let first = &http["results"][0];
        assert_eq!(&first["thread_id"], thread, "{store:?}: {http}");
        let matched: Vec<&str> = first["matched"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // Words as the summary writes them, not the terms they were folded to.
        assert!(
            matched.iter().any(|word| word.contains(term)),
            "{store:?}: {matched:?}"
        );
        assert!(
            matched
                .iter()
                .all(|word| first["summary"].as_str().unwrap().contains(word)),
            "{store:?}: {matched:?}"
        );
        let mcp = call_tool(&app, &token, "load_memories", json!({"q": question})).await;
        assert_eq!(structured(&mcp), &http, "{store:?}");
    }
}
