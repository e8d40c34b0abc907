//! What a call's page needs from the resolved options.

use crate::config::Settings;

/// What a call's page needs from the resolved options: how to prepare, walk and shoot it.
#[derive(Debug, Clone)]
pub struct PageSettings<'a> {
    pub settings: &'a Settings,
    /// The `stylePath` files' CSS, joined.
    pub css: &'a str,
    /// How long to wait for the page, in ms.
    pub timeout_ms: f64,
    /// The call's own options say `fullPage: true` (not only the default or the config file): a
    /// Locator capture of an element that scrolls then takes its whole scrollable content, as a
    /// page capture takes the whole page. Asked in the call only, so a Locator's capture of a
    /// scrolling element stays its visible box, as toHaveScreenshot's, unless a test asks.
    pub scroll_content: bool,
}
