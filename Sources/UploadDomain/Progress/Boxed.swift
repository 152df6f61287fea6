/// A value kept out of line, never changed once made: copies of a struct that holds it share it safely. For what
/// most of a batch's files have none of (an error, a prepared copy), held per file by the session and its rows.
final class Boxed<Value: Sendable & Equatable>: Sendable, Equatable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    static func == (lhs: Boxed, rhs: Boxed) -> Bool { lhs === rhs || lhs.value == rhs.value }
}
