import Foundation

/// The escape sequence that asks a terminal to set the clipboard: `ESC ] 52 ; c ; <base64> BEL`.
///
/// The text travels base64-encoded, so nothing in it (a file name's control characters) can reach the terminal
/// as a command of its own.
public enum OSC52 {
    /// The sequence setting the clipboard (`c`) to `text`.
    public static func sequence(_ text: String) -> String {
        "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}"
    }
}
