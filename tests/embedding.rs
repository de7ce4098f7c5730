//! The embedding model, run by kioku on real models (all-MiniLM-L6-v2, which reads English
//! alone, and multilingual-e5-small, the tests' model, both from PyPI packages scripts/test
//! fetches): known similarities come out as the models' authors report them, vectors as
//! candle's BERT computes them, and a directory without the model's files is refused with the
//! file named.

use kioku::embedding::{EmbeddingError, Model, Precision};

#[path = "common/needs.rs"]
mod needs;

/// The sentences of sentence-transformers' own semantic-search example: a sentence about
/// eating is closer to another about eating than to one about a baby, whatever words they
/// share. At f32 the similarities are the model's authors' to 0.002; int8 products move them
/// a little more.
#[test]
fn sentences_alike_in_meaning_are_closer_than_those_alike_in_words() {
    let Some(model_dir) = needs::english_model() else {
        return;
    };
    for (precision, within) in [(Precision::F32, 0.002), (Precision::Int8, 0.01)] {
        let model = Model::load_as(&model_dir, precision).unwrap();
        assert_eq!(model.dimension(), 384);
        let embed = |text: &str| model.embed(text).unwrap().vector;
        let food = embed("A man is eating food.");
        let bread = embed("A man is eating a piece of bread.");
        let baby = embed("The girl is carrying a baby.");
        let (alike, unlike) = (food.cosine(&bread), food.cosine(&baby));
        // sentence-transformers gives 0.7553 and -0.1050 for these pairs with this model.
        assert!((alike - 0.7553).abs() < within, "{precision}: {alike}");
        assert!((unlike + 0.1050).abs() < within, "{precision}: {unlike}");
        let knee = embed("How is my knee doing?");
        let rehab =
            embed("Physiotherapy twice a week since the ligament surgery; the swelling is down.");
        let trip = embed("We booked the ryokan near Arashiyama for the autumn trip.");
        assert!(knee.cosine(&rehab) > knee.cosine(&trip), "{precision}");
    }
}

/// kioku runs BERT with its own GELU and softmax, its own vocabulary table (f16 rows) and, for
/// a SentencePiece vocabulary, its own segmentation; candle-transformers' `BertModel` with
/// Hugging Face's `tokenizers`, the general implementations, give the same vectors at f32, and
/// nearly the same at int8: for MiniLM, also of a text three times longer than it reads at
/// once (read whole: the mean of its windows, 32 tokens shared), and for multilingual-e5 on text in several scripts, emoji and
/// a character its vocabulary lacks, after its `passage: ` prompt.
#[test]
fn the_encoder_gives_the_vectors_of_candles_bert() {
    let Some(model_dir) = needs::english_model() else {
        return;
    };
    let summary = "Caroline told Melanie about the LGBTQ support group she went to on Sunday: \
                   the stories there moved her, and she is thinking of counselling as a career. \
                   Melanie said she is proud of her and described painting a lake at sunrise.";
    let long: String = (0..40)
        .map(|i| format!("On day {i} the garden needed water, and the tomatoes grew {i} cm. "))
        .collect();
    assert_vectors_of_candles_bert(&model_dir, "", &[summary, &long]);
    let Some(model_dir) = needs::model() else {
        return;
    };
    let texts = [
        summary,
        "今日は東京で会議があり、新しいプロジェクトの計画について話し合った。ﾃｽﾄは①で、㍻の資料も。",
        "서울에서 회의를 했다. Встреча в Москве. 🙂 𠮷野家で  昼食\tを取った。",
    ];
    assert_vectors_of_candles_bert(&model_dir, "passage: ", &texts);
}

/// Asserts that kioku's vectors of `texts` are candle's of `prompt` and the text.
fn assert_vectors_of_candles_bert(model_dir: &std::path::Path, prompt: &str, texts: &[&str]) {
    use candle_core::{DType, Device, Tensor};
    use candle_transformers::models::bert::{BertModel, Config};
    let config: Config =
        serde_json::from_slice(&std::fs::read(model_dir.join("config.json")).unwrap()).unwrap();
    let weights = [model_dir.join("model.safetensors")];
    // SAFETY: the test's model files are not changed while it runs.
    let vb = unsafe {
        candle_nn::VarBuilder::from_mmaped_safetensors(&weights, DType::F32, &Device::Cpu)
    }
    .unwrap();
    let bert = BertModel::load(vb, &config).unwrap();
    let mut tokenizer = tokenizers::Tokenizer::from_file(model_dir.join("tokenizer.json")).unwrap();
    tokenizer.with_padding(None); // as kioku reads: one text, no padding to average in
    let sentence: serde_json::Value = serde_json::from_slice(
        &std::fs::read(model_dir.join("sentence_bert_config.json")).unwrap(),
    )
    .unwrap();
    let max_tokens = sentence["max_seq_length"].as_u64().unwrap() as usize;
    tokenizer.with_truncation(None).unwrap();
    let unit = |v: Vec<f32>| -> Vec<f32> {
        let norm = v.iter().map(|v| v * v).sum::<f32>().sqrt();
        v.iter().map(|v| v / norm).collect()
    };
    let vector = |ids: &[u32]| -> Vec<f32> {
        let ids = Tensor::new(ids, &Device::Cpu)
            .unwrap()
            .unsqueeze(0)
            .unwrap();
        let tokens = bert
            .forward(&ids, &ids.zeros_like().unwrap(), None)
            .unwrap();
        let mean: Vec<f32> = tokens
            .mean(1)
            .unwrap()
            .squeeze(0)
            .unwrap()
            .to_vec1()
            .unwrap();
        unit(mean)
    };
    let candles = |text: &str| -> Vec<f32> {
        let ids = tokenizer.encode(format!("{prompt}{text}"), true).unwrap();
        let (first, text, last) = match ids.get_ids() {
            [first, text @ .., last] => (*first, text, *last),
            _ => unreachable!("a text between [CLS] and [SEP]"),
        };
        // Windows of what the model reads, the special tokens around each, 32 tokens shared.
        let room = max_tokens - 2;
        let windows: Vec<Vec<f32>> = (0..)
            .map(|n| n * (room - 32))
            .take_while(|&start| start == 0 || start + 32 < text.len())
            .map(|start| {
                let end = (start + room).min(text.len());
                vector(&[&[first], &text[start..end], &[last]].concat())
            })
            .collect();
        let sum = windows.iter().fold(vec![0.0; windows[0].len()], |sum, v| {
            sum.iter().zip(v).map(|(a, b)| a + b).collect()
        });
        unit(sum)
    };
    let expected: Vec<Vec<f32>> = texts.iter().map(|text| candles(text)).collect();
    for (precision, least) in [(Precision::F32, 0.99999), (Precision::Int8, 0.998)] {
        let model = Model::load_as(model_dir, precision).unwrap();
        for (text, expected) in texts.iter().zip(&expected) {
            let ours = model.embed(text).unwrap().vector;
            let cosine: f32 = ours.values().iter().zip(expected).map(|(a, b)| a * b).sum();
            assert!(cosine > least, "{precision}: {cosine} for {text}");
        }
    }
}

/// MiniLM's vocabulary is English: of a Japanese question it knows too little to rank by.
#[test]
fn a_text_the_vocabulary_lacks_pieces_of_is_not_embedded_to_rank_by() {
    let Some(model_dir) = needs::english_model() else {
        return;
    };
    let model = Model::load(&model_dir).unwrap();
    let whole = model.embed_if_read_whole("How is my knee doing?").unwrap();
    assert_eq!(
        whole,
        Some(model.embed("How is my knee doing?").unwrap().vector)
    );
    assert_eq!(
        model.embed_if_read_whole("梅雨とは何季の一種か？").unwrap(),
        None
    );
}

/// A Japanese question MiniLM has every piece of is still spelled a character at a time, which
/// it cannot read either; English it reads, acronyms and numbers included.
#[test]
fn a_text_spelled_a_character_at_a_time_is_not_read_whole() {
    let Some(model_dir) = needs::english_model() else {
        return;
    };
    let model = Model::load(&model_dir).unwrap();
    let question = "2013年のラオスのGDPはいくら？";
    let tokenizer = tokenizers::Tokenizer::from_file(model_dir.join("tokenizer.json")).unwrap();
    let unknown = tokenizer.token_to_id("[UNK]").unwrap();
    let ids = tokenizer.encode(question, true).unwrap().get_ids().to_vec();
    assert!(
        !ids.contains(&unknown),
        "no unknown token: the spelling alone decides"
    );
    assert_eq!(model.embed_if_read_whole(question).unwrap(), None);
    // A summary's vector says the same, from the one tokenizing that made it.
    assert!(!model.embed(question).unwrap().read_whole);
    for english in [
        "When did John run the 5K for charity?",
        "What is a GF, tp or BPP?",
    ] {
        assert!(
            model.embed_if_read_whole(english).unwrap().is_some(),
            "{english}"
        );
        assert!(model.embed(english).unwrap().read_whole, "{english}");
    }
}

#[test]
fn the_model_is_named_by_its_weights_and_dimension() {
    let Some(model_dir) = needs::english_model() else {
        return;
    };
    let model = Model::load(&model_dir).unwrap();
    assert_eq!(model.id().as_str(), "sha256:53aa51172d142c89/384/whole");
}

#[test]
fn a_directory_without_the_weights_is_refused_naming_them() {
    let Some(model_dir) = needs::english_model() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for file in ["config.json", "tokenizer.json"] {
        std::fs::copy(model_dir.join(file), dir.path().join(file)).unwrap();
    }
    let err = Model::load(dir.path()).err().expect("no weights, no model");
    assert!(
        matches!(
            err,
            EmbeddingError::Missing {
                file: "model.safetensors",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("model.safetensors"), "{err}");
}

/// A RoBERTa-family model (multilingual-e5, say) would load as BERT and give wrong vectors.
#[test]
fn a_model_of_another_family_is_refused() {
    let Some(model_dir) = needs::english_model() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = std::fs::read_to_string(model_dir.join("config.json")).unwrap();
    let config = config.replace(
        "\"model_type\": \"bert\"",
        "\"model_type\": \"xlm-roberta\"",
    );
    std::fs::write(dir.path().join("config.json"), config).unwrap();
    std::fs::copy(
        model_dir.join("tokenizer.json"),
        dir.path().join("tokenizer.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        model_dir.join("model.safetensors"),
        dir.path().join("model.safetensors"),
    )
    .unwrap();
    let err = Model::load(dir.path()).err().expect("not a BERT model");
    assert!(
        matches!(err, EmbeddingError::NotBert(ref t) if t == "xlm-roberta"),
        "{err:?}"
    );
}

/// multilingual-e5-small (scripts/test writes it from its PyPI packages) reads Japanese: its
/// SentencePiece vocabulary splits words into pieces of one character where they are its
/// words, and only a piece it lacks (`<unk>`) keeps a text from being read whole. A question
/// and a summary get the prefixes the model was trained with, and a question is closer to the
/// summary it is about, in either language.
#[test]
fn a_multilingual_model_reads_japanese_by_meaning() {
    let Some(model_dir) = needs::model() else {
        return;
    };
    for precision in [Precision::F32, Precision::Int8] {
        let model = Model::load_as(&model_dir, precision).unwrap();
        assert_eq!(model.dimension(), 384);
        for japanese in [
            "猫が好きな人のためのメモリを検索する",
            "2013年のラオスのGDPはいくら？",
            "膝の調子はどう？",
        ] {
            let vector = model.embed_if_read_whole(japanese).unwrap();
            assert!(vector.is_some(), "{precision}: {japanese}");
            // After the passage prompt, as a summary is read, the same.
            assert!(model.embed(japanese).unwrap().read_whole, "{precision}");
        }
        let lacking = model.embed_if_read_whole("𠮷野家").unwrap();
        assert_eq!(lacking, None, "a piece the vocabulary lacks");
        assert!(!model.embed("𠮷野家").unwrap().read_whole, "{precision}");
        let ask = |q: &str| model.embed_if_read_whole(q).unwrap().unwrap();
        let knee = ask("膝の調子はどう？");
        let rehab = model
            .embed("靭帯の手術の後、週に二回リハビリに通っている。腫れは引いてきた。")
            .unwrap()
            .vector;
        let trip = model
            .embed("秋の旅行に嵐山の近くの旅館を予約した。")
            .unwrap()
            .vector;
        assert!(knee.cosine(&rehab) > knee.cosine(&trip), "{precision}");
        // A question is read after `query: `, a summary after `passage: `.
        let as_summary = model.embed("膝の調子はどう？").unwrap().vector;
        assert_ne!(knee, as_summary, "{precision}");
        assert!(knee.cosine(&as_summary) > 0.9, "{precision}");
        let english = ask("How is my knee doing?");
        assert!(
            english.cosine(&rehab) > english.cosine(&trip),
            "{precision}"
        );
    }
}
