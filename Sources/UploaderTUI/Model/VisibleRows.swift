import UploadDomain

/// The rows the list shows, as indices into the snapshot's files in input order.
///
/// Unfiltered it is every index, held as a count: a frame of a 10,000-file batch then does no work per file.
public struct VisibleRows: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        case all(count: Int)
        case some([Int])
    }

    private let storage: Storage

    /// Every one of `count` files.
    public static func all(_ count: Int) -> VisibleRows { VisibleRows(storage: .all(count: count)) }

    /// Only these indices.
    public static func only(_ indices: [Int]) -> VisibleRows { VisibleRows(storage: .some(indices)) }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .all(let count): count
        case .some(let indices): indices.count
        }
    }

    public subscript(position: Int) -> Int {
        switch storage {
        case .all: position
        case .some(let indices): indices[position]
        }
    }
}
