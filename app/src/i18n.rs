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

/// Megabytes with one decimal, e.g. `12.3 MB`.
pub fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
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
    loading: "Loading the course and models…", "কোর্স ও মডেল লোড হচ্ছে…";
    checking: "Checking the saved copy", "সংরক্ষিত কপি যাচাই হচ্ছে";
    downloading: "Downloading", "ডাউনলোড হচ্ছে";
    preparing: "Preparing", "প্রস্তুত করা হচ্ছে";
    left: "left", "বাকি";
    retry: "Retry", "আবার চেষ্টা করো";
    ready_cached: "ready offline from this device's copy", "এই ডিভাইসের কপি থেকে অফলাইনে প্রস্তুত";
    ready_downloaded: "downloaded and saved for offline use", "ডাউনলোড করে অফলাইনের জন্য রাখা হয়েছে";
    sections: "sections", "অংশ";
    cpu_only: "WebGPU is not available here, so the models run on the CPU (slower).", "এখানে WebGPU নেই, তাই মডেল সিপিইউ-তে চলছে (ধীরে)।";
    gpu_found: "WebGPU is available; the models run on the CPU backend for now.", "WebGPU আছে; আপাতত মডেল সিপিইউ-তে চলছে।";
    gpu_checking: "Checking for WebGPU…", "WebGPU খোঁজা হচ্ছে…";
    ask_placeholder: "Ask a question about the course…", "কোর্স নিয়ে একটি প্রশ্ন লেখো…";
    ask: "Ask", "জিজ্ঞেস করো";
    stop: "Stop", "থামাও";
    thinking: "Finding the evidence…", "প্রমাণ খোঁজা হচ্ছে…";
    reading: "Reading the evidence", "প্রমাণ পড়া হচ্ছে";
    tokens: "tokens", "টোকেন";
    abstain: "The course book does not cover this, so I will not guess. The nearest sections are:", "পাঠ্যবইয়ে এ বিষয়ে কিছু নেই, তাই অনুমান করব না। কাছাকাছি অংশগুলো:";
    sources: "Sources given to the model", "মডেলকে দেওয়া উৎস";
    matched: "The model cited nothing itself; the app matched its sentences to the sources.", "মডেল নিজে উৎস দেয়নি; অ্যাপ বাক্যগুলো উৎসের সাথে মিলিয়েছে।";
    stopped: "Stopped.", "থামানো হয়েছে।";
    small_model: "Answers come from a small on-device model: check them against the sources.", "উত্তর আসে ডিভাইসের ছোট মডেল থেকে: উৎসের সাথে মিলিয়ে দেখো।";
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
        assert_eq!(mb(12_345_678.0), "12.3 MB");
    }
}
