//! UI strings in English and Bangla. The choice is kept in `localStorage` (`pathshala.lang`).
//!
//! Course text and answers are shown as they are; only the app's own words are translated.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    #[default]
    En,
    Bn,
}

const KEY: &str = "pathshala.lang";

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Bn => "bn",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "bn" => Some(Lang::Bn),
            _ => None,
        }
    }

    /// The other language, for the switch.
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Bn,
            Lang::Bn => Lang::En,
        }
    }

    /// The saved choice, else the browser's language, else English.
    pub fn load() -> Lang {
        let window = web_sys::window();
        let saved = window.as_ref().and_then(|w| w.local_storage().ok().flatten()).and_then(|s| s.get_item(KEY).ok().flatten());
        if let Some(lang) = saved.as_deref().and_then(Lang::from_code) {
            return lang;
        }
        match window.and_then(|w| w.navigator().language()) {
            Some(l) if l.starts_with("bn") => Lang::Bn,
            _ => Lang::En,
        }
    }

    pub fn save(self) {
        if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
            let _ = s.set_item(KEY, self.code());
        }
    }
}

/// Megabytes with one decimal, e.g. `12.3 MB` (the worker's messages; the page writes
/// [`Texts::mb`]).
pub fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

pub use inference::text::bengali_digits;


impl Texts {
    /// The app's own numbers (counts, scores, progress) in the interface's digits: Bengali
    /// digits in Bangla. Course text is shown as it is.
    pub fn num(self, text: impl std::fmt::Display) -> String {
        match self.0 {
            Lang::En => text.to_string(),
            Lang::Bn => bengali_digits(&text.to_string()),
        }
    }

    /// Megabytes with one decimal, e.g. `12.3 MB` (`১২.৩ MB` in Bangla).
    pub fn mb(self, bytes: f64) -> String {
        self.num(mb(bytes))
    }

    /// A difficulty tier's name.
    pub fn difficulty(self, d: inference::agent::author::Difficulty) -> &'static str {
        use inference::agent::author::Difficulty;
        match d {
            Difficulty::Beginner => self.difficulty_beginner(),
            Difficulty::Intermediate => self.difficulty_intermediate(),
            Difficulty::Advanced => self.difficulty_advanced(),
        }
    }

    /// A Bloom level's name.
    pub fn bloom(self, b: crate::protocol::Bloom) -> &'static str {
        use crate::protocol::Bloom;
        match b {
            Bloom::Remember => self.bloom_remember(),
            Bloom::Understand => self.bloom_understand(),
            Bloom::Apply => self.bloom_apply(),
            Bloom::Analyse => self.bloom_analyse(),
            Bloom::Evaluate => self.bloom_evaluate(),
            Bloom::Create => self.bloom_create(),
        }
    }
}

/// The app's words in one language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texts(pub Lang);

macro_rules! texts {
    ($($name:ident: $en:expr, $bn:expr;)*) => {
        impl Texts {
            $(pub fn $name(self) -> &'static str {
                match self.0 {
                    Lang::En => $en,
                    Lang::Bn => $bn,
                }
            })*
        }
    };
}

texts! {
    title: "Pathshala", "পাঠশালা";
    tagline: "Your course book, offline", "তোমার পাঠ্যবই, অফলাইনে";
    switch_to: "বাংলা", "English";
    tab_ask: "Ask", "প্রশ্ন";
    tab_book: "Book", "বই";
    tab_storage: "Storage", "সংরক্ষণ";
    tab_code: "Code", "কোড";
    code_problem: "Problem:", "সমস্যা:";
    free_practice: "Free practice (no problem)", "মুক্ত অনুশীলন (কোনো সমস্যা নয়)";
    free_note: "Write any Python and press Run. It runs in a sandbox on this device: no files, network or page access. Pick a problem to be tutored step by step.", "যেকোনো পাইথন লিখে চালাও চাপো। এটি এই ডিভাইসের স্যান্ডবক্সে চলে: ফাইল, নেটওয়ার্ক বা পাতায় হাত দিতে পারে না। ধাপে ধাপে শিখতে একটি সমস্যা বেছে নাও।";
    code_steps_done: "Steps done:", "সম্পন্ন ধাপ:";
    code_so_far: "Your program so far", "এখন পর্যন্ত তোমার প্রোগ্রাম";
    code_editor: "Python editor", "পাইথন এডিটর";
    code_save_failed: "Your code could not be saved on this device (storage may be full); it stays on this page until you close it. Copy it somewhere safe:", "তোমার কোড এই ডিভাইসে রাখা গেল না (জায়গা ফুরিয়ে থাকতে পারে); পাতা বন্ধ না করা পর্যন্ত এখানে থাকবে। অন্য কোথাও কপি করে রাখো:";
    python_fetching: "Downloading Python for the Code view:", "কোড অংশের জন্য পাইথন নামানো হচ্ছে:";
    python_failed: "Python for the Code view could not be downloaded:", "কোড অংশের জন্য পাইথন নামানো গেল না:";
    editor_keys: "Tab indents, Shift+Tab removes indentation, Ctrl+Enter runs.", "Tab দিলে ইন্ডেন্ট হয়, Shift+Tab দিলে সরে, Ctrl+Enter দিলে চলে।";
    run: "Run", "চালাও";
    check_step: "Check step", "ধাপ যাচাই করো";
    running: "Running…", "চলছে…";
    status_ok: "finished", "শেষ হয়েছে";
    status_error: "error", "ত্রুটি";
    status_timeout: "timeout", "সময় শেষ";
    status_killed: "stopped", "থামানো হয়েছে";
    line: "line", "লাইন";
    your_line: "your line", "তোমার লাইন";
    column: "column", "কলাম";
    syntax_error: "Not valid Python yet:", "এখনও সঠিক পাইথন নয়:";
    hint: "Hint:", "ইঙ্গিত:";
    not_run: "Nothing was run: the code is checked before it runs.", "কিছুই চালানো হয়নি: চালানোর আগে কোড যাচাই করা হয়।";
    stopped_time: "Stopped: the program ran past its time limit (a loop that never ends?)", "থামানো হয়েছে: প্রোগ্রাম সময়সীমা পেরিয়েছে (শেষ না হওয়া লুপ?)";
    stopped_output: "Stopped: the program printed more than the sandbox keeps.", "থামানো হয়েছে: প্রোগ্রাম স্যান্ডবক্সের সীমার বেশি ছাপিয়েছে।";
    stopped_memory: "Stopped: the program needed more memory than the sandbox allows.", "থামানো হয়েছে: প্রোগ্রামের স্যান্ডবক্সের সীমার বেশি মেমরি লেগেছে।";
    stopped_stack: "Stopped: the program nested calls deeper than the browser's stack allows (recursion without an end?).", "থামানো হয়েছে: প্রোগ্রাম ব্রাউজারের স্ট্যাকের সীমার চেয়ে গভীরে ফাংশন ডেকেছে (শেষ না হওয়া রিকার্শন?)।";
    restarted: "The sandbox was restarted; the next run starts clean.", "স্যান্ডবক্স আবার চালু হয়েছে; পরের রান পরিষ্কার অবস্থা থেকে শুরু হবে।";
    checking_lines: "Checking your lines…", "তোমার লাইনগুলো যাচাই হচ্ছে…";
    code_step: "Step", "ধাপ";
    own_task: "Or describe your own task:", "অথবা নিজের কাজটি লেখো:";
    own_task_placeholder: "e.g. Read a number and print whether it is even or odd.", "যেমন: একটি সংখ্যা পড়ে বলো সেটি জোড় না বিজোড়।";
    plan_task: "Plan it with the tutor", "শিক্ষকের সঙ্গে ধাপে ভাগ করো";
    planning: "The tutor is planning the steps (the model runs on this device; this can take a minute)…", "শিক্ষক ধাপগুলো সাজাচ্ছে (মডেল এই ডিভাইসেই চলে; এক মিনিট লাগতে পারে)…";
    preparing_step: "The tutor is preparing the next step…", "শিক্ষক পরের ধাপ তৈরি করছে…";
    tutor_model_once: "The tutor needs its coding model: it is downloaded once, then kept on this device for offline use.", "শিক্ষকের কোডিং মডেল লাগবে: এটি একবারই ডাউনলোড হয়, তারপর অফলাইনে ব্যবহারের জন্য এই ডিভাইসে থাকে।";
    stuck: "The tutor could not write code that runs for this step. Try describing the task more precisely, or pick a problem.", "শিক্ষক এই ধাপের জন্য চলার মতো কোড লিখতে পারেনি। কাজটি আরও স্পষ্ট করে লেখো, অথবা একটি সমস্যা বেছে নাও।";
    check_timeout: "Your lines did not finish in time: is there a loop whose condition never becomes false?", "তোমার লাইনগুলো সময়মতো শেষ হয়নি: কোনো লুপের শর্ত কি কখনও মিথ্যা হয় না?";
    testing: "All steps done. Running the tests…", "সব ধাপ শেষ। পরীক্ষা চলছে…";
    tests_passed: "All steps done and every test passes. Well done!", "সব ধাপ শেষ, সব পরীক্ষায় পাস। দারুণ!";
    tests_failed: "All steps done, but a test fails:", "সব ধাপ শেষ, কিন্তু একটি পরীক্ষা ব্যর্থ:";
    tutor_lines: "The tutor's lines for this step:", "এই ধাপে শিক্ষকের লাইন:";
    use_lines: "Use these lines and go on", "এই লাইনগুলো নিয়ে এগোও";
    loading: "Loading the course and models…", "কোর্স ও মডেল লোড হচ্ছে…";
    checking: "Checking the saved copy", "সংরক্ষিত কপি যাচাই হচ্ছে";
    downloading: "Downloading", "ডাউনলোড হচ্ছে";
    preparing: "Preparing", "প্রস্তুত করা হচ্ছে";
    left: "left", "বাকি";
    retry: "Retry", "আবার চেষ্টা করো";
    ready_cached: "ready offline from this device's copy", "এই ডিভাইসের কপি থেকে অফলাইনে প্রস্তুত";
    ready_downloaded: "downloaded and saved for offline use", "ডাউনলোড করে অফলাইনের জন্য রাখা হয়েছে";
    sections: "sections", "অংশ";
    cpu_threads: "CPU threads for the models:", "মডেলের জন্য সিপিইউ থ্রেড:";
    one_core: "The models use one CPU core: this page is not cross-origin isolated yet (a first visit, or the browser does not allow it). Reload to use all cores.", "মডেল একটি সিপিইউ কোর ব্যবহার করছে: পেজটি এখনো ক্রস-অরিজিন আইসোলেটেড নয় (প্রথমবার খোলা, বা ব্রাউজার অনুমতি দেয় না)। সব কোর ব্যবহার করতে পেজটি রিলোড করো।";
    cpu_only: "WebGPU is not available here, so the models run on the CPU (slower).", "এখানে WebGPU নেই, তাই মডেল সিপিইউ-তে চলছে (ধীরে)।";
    gpu_found: "WebGPU is available: the language model runs on the GPU.", "WebGPU আছে: ভাষা-মডেল জিপিইউ-তে চলছে।";
    gpu_software: "WebGPU here is a software renderer, slower than the CPU, so the models run on the CPU.", "এখানে WebGPU একটি সফটওয়্যার রেন্ডারার, সিপিইউ-র চেয়ে ধীর, তাই মডেল সিপিইউ-তে চলছে।";
    gpu_checking: "Checking for WebGPU…", "WebGPU খোঁজা হচ্ছে…";
    ask_placeholder: "Ask anything: a question on the course, \"quiz me\", a program to write…", "যেকোনো কিছু লেখো: কোর্সের প্রশ্ন, \"কুইজ নাও\", লেখার মতো একটি প্রোগ্রাম…";
    route_conceptual: "Answer from the book", "বই থেকে উত্তর";
    route_quiz: "Quiz", "কুইজ";
    route_code: "Code tutor", "কোড শিক্ষক";
    route_greeting: "Greeting", "শুভেচ্ছা";
    route_harmful: "Refused", "প্রত্যাখ্যাত";
    route_off_topic: "Outside the course", "কোর্সের বাইরে";
    route_ambiguous: "Needs a detail", "আরেকটু জানা দরকার";
    routed_to: "Sent to:", "পাঠানো হলো:";
    not_what_i_meant: "Not what I meant:", "এটা চাইনি:";
    clarify_hint: "…or type your answer in the box above.", "…অথবা উপরের ঘরে তোমার উত্তর লেখো।";
    quiz_sent: "Your quiz is in the Quiz view: choose the part of the book to be tested on.", "তোমার কুইজ Quiz-এ খোলা হয়েছে: বইয়ের কোন অংশে পরীক্ষা দেবে বেছে নাও।";
    open_quiz: "Open Quiz", "কুইজ খোলো";
    tab_quiz: "Quiz", "কুইজ";
    quiz_topic_placeholder: "A topic to be quizzed on, e.g. loops", "কুইজের বিষয়, যেমন: লুপ";
    quiz_find: "Start", "শুরু করো";
    quiz_finding: "Looking for this topic in the book…", "বইয়ে বিষয়টি খোঁজা হচ্ছে…";
    quiz_choose_part: "Choose the part of the book to be quizzed on:", "কোন অংশ থেকে কুইজ হবে বেছে নাও:";
    quiz_intro: "Questions are written from the book by the model on this device and checked before you see them. Right answers make the next question harder; wrong ones get an explanation and an easier question.", "প্রশ্নগুলো এই ডিভাইসের মডেল বই থেকে লেখে এবং দেখানোর আগে যাচাই করে। ঠিক উত্তরে পরের প্রশ্ন কঠিন হয়; ভুল হলে ব্যাখ্যা আর সহজ একটি প্রশ্ন আসে।";
    quiz_question: "Question", "প্রশ্ন";
    quiz_of: "of", "/";
    quiz_level: "Level:", "স্তর:";
    quiz_right: "Right!", "ঠিক!";
    quiz_wrong: "Not quite.", "ঠিক হয়নি।";
    quiz_your_choice: "Your choice:", "তোমার উত্তর:";
    quiz_correct_is: "The right answer:", "সঠিক উত্তর:";
    quiz_read_book: "Read it in the book:", "বইয়ে পড়ো:";
    quiz_next: "Next question", "পরের প্রশ্ন";
    quiz_writing_first: "Writing the first question from the book…", "বই থেকে প্রথম প্রশ্ন লেখা হচ্ছে…";
    quiz_writing_next: "Preparing the next question", "পরের প্রশ্ন তৈরি হচ্ছে";
    quiz_if_right: "for a right answer", "ঠিক উত্তরের জন্য";
    quiz_if_wrong: "for a wrong answer", "ভুল উত্তরের জন্য";
    quiz_skipped: "question(s) failed the checks and were not shown.", "টি প্রশ্ন যাচাইয়ে বাদ পড়েছে, দেখানো হয়নি।";
    quiz_results: "Results", "ফলাফল";
    quiz_score: "Score", "নম্বর";
    quiz_retake: "Retake", "আবার দাও";
    quiz_new: "Another topic", "অন্য বিষয়";
    quiz_saved: "Your quizzes on this device", "এই ডিভাইসে তোমার কুইজ";
    quiz_review: "Your answers", "তোমার উত্তরগুলো";
    quiz_next_level: "next starts at", "পরেরটি শুরু";
    quiz_nearest: "The nearest sections:", "কাছাকাছি অংশ:";
    bloom_remember: "Remember", "মনে রাখা";
    bloom_understand: "Understand", "বোঝা";
    bloom_apply: "Apply", "প্রয়োগ";
    bloom_analyse: "Analyse", "বিশ্লেষণ";
    bloom_evaluate: "Evaluate", "মূল্যায়ন";
    bloom_create: "Create", "সৃষ্টি";
    code_sent: "Your task is in the Code view: plan it with the tutor there, step by step.", "তোমার কাজটি Code-এ রাখা হয়েছে: সেখানে শিক্ষকের সঙ্গে ধাপে ধাপে করো।";
    open_code: "Open Code", "Code খোলো";
    ask: "Ask", "জিজ্ঞেস করো";
    stop: "Stop", "থামাও";
    routing: "Reading your message…", "তোমার বার্তা পড়া হচ্ছে…";
    thinking: "Finding the evidence…", "প্রমাণ খোঁজা হচ্ছে…";
    reading: "Reading the evidence", "প্রমাণ পড়া হচ্ছে";
    tokens: "tokens", "টোকেন";
    abstain: "The course book does not cover this, so I will not guess. The nearest sections are:", "পাঠ্যবইয়ে এ বিষয়ে কিছু নেই, তাই অনুমান করব না। কাছাকাছি অংশগুলো:";
    sources: "Sources given to the model", "মডেলকে দেওয়া উৎস";
    abstain_model: "The book's passages do not support an answer I could check, so none is shown. The book says:", "বইয়ের অংশগুলো দিয়ে যাচাই করা যায় এমন উত্তর পাওয়া যায়নি, তাই দেখানো হলো না। বই বলছে:";
    bad_input: "Ask a question in words (at most 2,000 characters).", "শব্দে একটি প্রশ্ন করো (সর্বোচ্চ ২,০০০ অক্ষর)।";
    from_book: "From the book", "বই থেকে";
    checking_answer: "Checking each sentence against the book", "প্রতিটি বাক্য বইয়ের সাথে মেলানো হচ্ছে";
    dropped: "sentence(s) left out: the book's passages do not support them.", "টি বাক্য বাদ দেওয়া হয়েছে: বইয়ের অংশে এগুলোর সমর্থন নেই।";
    stopped: "Stopped.", "থামানো হয়েছে।";
    small_model: "Answers come from a small on-device model; each sentence shown was checked against the passage it cites.", "উত্তর আসে ডিভাইসের ছোট মডেল থেকে; দেখানো প্রতিটি বাক্য তার উৎস-অংশের সাথে মিলিয়ে দেখা হয়েছে।";
    find: "Find passages", "অংশ খোঁজো";
    search_placeholder: "Search the course…", "কোর্সে খোঁজো…";
    search: "Search", "খোঁজো";
    coverage: "coverage", "কভারেজ";
    not_covered: "The course book does not cover this. Nearest sections:", "পাঠ্যবইয়ে এ বিষয়ে কিছু নেই। কাছাকাছি অংশ:";
    contents: "Contents", "সূচিপত্র";
    book_search_placeholder: "Search the book (keywords)…", "বইয়ে খোঁজো (শব্দ)…";
    no_hits: "No section contains these words.", "কোনো অংশে এই শব্দগুলো নেই।";
    choose_section: "Choose a section to read.", "পড়ার জন্য একটি অংশ বেছে নাও।";
    up: "Up", "উপরে";
    subsections: "Subsections", "উপ-অংশ";
    cached_here: "Saved on this device", "এই ডিভাইসে রাখা আছে";
    nothing_cached: "Nothing is saved yet.", "এখনও কিছু রাখা হয়নি।";
    storage_used: "Storage used by this site", "এই সাইটের ব্যবহৃত জায়গা";
    of: "of", "এর মধ্যে";
    clear: "Delete saved files", "রাখা ফাইল মুছে ফেলো";
    cleared: "Deleted. The next visit downloads everything again.", "মুছে ফেলা হয়েছে। পরের বার সব আবার ডাউনলোড হবে।";
    refresh: "Refresh", "হালনাগাদ";
    complete_version: "Complete set", "পূর্ণ সেট";
    update_available: "An update is available.", "নতুন সংস্করণ এসেছে।";
    reload: "Reload", "আবার লোড করো";
    offline_note: "Works offline after the first visit.", "প্রথমবারের পর অফলাইনেও চলে।";
    md_preview: "Markdown preview", "মার্কডাউন প্রিভিউ";
    tab_author: "Author", "প্রশ্ন তৈরি";
    author_intro: "For teachers: MCQs and creative questions written from the book by the model on this device, each with its evidence, format checks and a verification report. Review them, then export them for Moodle or print an exam paper.", "শিক্ষকদের জন্য: এই ডিভাইসের মডেল বই থেকে বহুনির্বাচনি ও সৃজনশীল প্রশ্ন লেখে; প্রতিটির সাথে থাকে প্রমাণ, গঠন যাচাই ও যাচাই-প্রতিবেদন। দেখে নিন, তারপর Moodle-এর জন্য রপ্তানি করুন বা প্রশ্নপত্র ছাপুন।";
    author_placeholder: "e.g. 5 MCQs and 1 creative question on photosynthesis", "যেমন: সালোকসংশ্লেষণ নিয়ে ৫টি বহুনির্বাচনি ও ১টি সৃজনশীল প্রশ্ন";
    author_mcq: "MCQs", "বহুনির্বাচনি";
    author_cq: "Creative questions", "সৃজনশীল";
    author_difficulty: "Difficulty", "কাঠিন্য";
    difficulty_beginner: "Beginner", "সহজ";
    difficulty_intermediate: "Intermediate", "মাঝারি";
    difficulty_advanced: "Advanced", "কঠিন";
    author_language: "Language", "ভাষা";
    author_lang_course: "The course's", "কোর্সের ভাষা";
    author_chapters: "Only from these chapters or sections (optional):", "শুধু এই অধ্যায় বা অংশগুলো থেকে (ঐচ্ছিক):";
    author_sections: "Its sections", "এর অংশগুলো";
    author_write: "Write questions", "প্রশ্ন লেখো";
    author_stop: "Stop", "থামাও";
    author_writing: "Writing question", "প্রশ্ন লেখা হচ্ছে";
    author_missing: "Could not be written (not padded):", "লেখা যায়নি (পূরণ করা হয়নি):";
    author_bank: "Question bank", "প্রশ্নব্যাংক";
    author_empty: "No questions yet.", "এখনো কোনো প্রশ্ন নেই।";
    author_caution: "Caution:", "সতর্কতা:";
    author_evidence: "Evidence:", "প্রমাণ:";
    author_answer: "Answer:", "উত্তর:";
    author_scores: "Faithfulness / relevance / hallucination risk:", "বিশ্বস্ততা / প্রাসঙ্গিকতা / মনগড়া ঝুঁকি:";
    author_checks: "Checks passed:", "যাচাই পার:";
    author_accept: "Accept", "গ্রহণ";
    author_edit: "Edit", "সম্পাদনা";
    author_discard: "Discard", "বাদ দিন";
    author_restore: "Restore", "ফিরিয়ে আনুন";
    author_save: "Save and check again", "রাখুন ও আবার যাচাই করুন";
    author_cancel: "Cancel", "বাতিল";
    author_checking: "Checking the edit…", "সম্পাদনা যাচাই হচ্ছে…";
    author_save_failed: "The question bank could not be saved on this device (storage may be full); it stays on this page:", "প্রশ্নব্যাংক এই ডিভাইসে রাখা গেল না (জায়গা ফুরিয়ে থাকতে পারে); এই পাতায় আছে:";
    author_export: "Export:", "রপ্তানি:";
    author_print: "Print exam paper", "প্রশ্নপত্র ছাপুন";
    author_marks: "marks", "নম্বর";
    author_answer_key: "Answer key", "উত্তরমালা";
    author_ai: "AI-assisted", "এআই-সহায়িত";
    author_from_book: "From the book's definition", "বইয়ের সংজ্ঞা থেকে";
    author_from_run: "From the book's code, run", "বইয়ের কোড চালিয়ে";
    author_from_reason: "From a reason the book gives", "বইয়ে দেওয়া কারণ থেকে";
    author_from_example: "From examples the book gives", "বইয়ে দেওয়া উদাহরণ থেকে";
    author_from_contrast: "From the book's comparison table", "বইয়ের তুলনামূলক সারণি থেকে";
    author_from_statement: "From the book's own statements", "বইয়ের নিজের বক্তব্য থেকে";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_have_every_string() {
        for lang in [Lang::En, Lang::Bn] {
            let t = Texts(lang);
            assert!(!t.ask().is_empty() && !t.abstain().is_empty());
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
        }
        assert_eq!(Texts(Lang::Bn).switch_to(), "English");
        assert_eq!(Lang::En.other(), Lang::Bn);
        assert_eq!(Texts(Lang::En).mb(12_345_678.0), "12.3 MB");
    }

    #[test]
    fn bangla_numbers_use_bengali_digits() {
        assert_eq!(Texts(Lang::Bn).num(3), "৩");
        assert_eq!(Texts(Lang::Bn).mb(12_345_678.0), "১২.৩ MB");
        assert_eq!(Texts(Lang::En).num(108), "108");
        assert_eq!(bengali_digits("Question 10 of 8"), "Question ১০ of ৮");
    }
}
