/// Sizes on the command line: `512`, `64K`, `16M`, `2G` (1024-based; a trailing `B`, `i` or `iB` is allowed).
public enum ByteSize {
    /// The number of bytes, or nil when the text is not a size.
    public static func parse(_ text: String) -> Int64? {
        var digits = text.trimmingCharacters(in: " ").uppercased()
        for suffix in ["IB", "B", "I"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits.removeLast(suffix.count)
            break
        }
        var multiplier: Int64 = 1
        if let last = digits.last, let power = ["K": 1, "M": 2, "G": 3, "T": 4][String(last)] {
            multiplier = Int64(1) << (10 * power)
            digits.removeLast()
        }
        guard let value = Double(digits), value >= 0, value * Double(multiplier) < 9e18 else { return nil }
        return Int64(value * Double(multiplier))
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}
