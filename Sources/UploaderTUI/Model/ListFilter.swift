import UploadDomain

/// Which files the list shows; `f` cycles through them. Counts in the header always cover the whole batch.
public enum ListFilter: String, Sendable, CaseIterable {
    case all, active, failed, done

    /// The next filter in the cycle all → active → failed → done → all.
    public var next: ListFilter {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// True when `file` belongs in the list under this filter.
    public func includes(_ file: FileSnapshot) -> Bool {
        switch self {
        case .all: true
        // As the header's "active" count: a request in flight.
        case .active: file.phase.isActive
        case .failed: file.phase == .failed
        case .done: file.phase == .done
        }
    }
}
