import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// A PUT's URL: the relative path's segments percent-encoded byte by byte, as Foundation's `urlPathAllowed` less
/// `/;?#%` would encode each segment.
@Suite("PutPlanner URL")
struct PutPlannerURLTests {
    private func url(_ relativePath: String) -> String {
        let item = UploadItem(
            id: 0, path: "/p/" + relativePath, relativePath: relativePath, size: 1, modified: 0,
            contentType: "application/octet-stream")
        return PutPlanner(baseURL: "http://127.0.0.1/dav", headers: [], token: nil).url(for: item)
    }

    /// What the planner did before it encoded bytes itself.
    private func foundation(_ relativePath: String) -> String {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#%"))
        return "http://127.0.0.1/dav/"
            + relativePath.split(separator: "/").map {
                $0.addingPercentEncoding(withAllowedCharacters: allowed)!
            }.joined(separator: "/")
    }

    @Test("every printable ASCII byte is encoded as Foundation's urlPathAllowed less /;?#% encodes it")
    func asciiAgreesWithFoundation() {
        for byte in UInt8(0x20)...UInt8(0x7E) where byte != UInt8(ascii: "/") {
            let name = "a" + String(UnicodeScalar(byte)) + "b.jpg"
            #expect(url(name) == foundation(name), "byte \(byte)")
        }
    }

    @Test("folders keep their slashes; spaces, query and fragment marks, % and non-ASCII names are escaped")
    func pathsAndUnicode() {
        for path in ["pets/cat 1.jpg", "a?b#c/d%e;f.png", "Ünïcødé/фото/猫.heic", "x/y/z/+&=@!$'()*,:~.jpg"] {
            #expect(url(path) == foundation(path), "\(path)")
        }
        #expect(url("pets/cat 1.jpg") == "http://127.0.0.1/dav/pets/cat%201.jpg")
        #expect(url("a?b#c%;.png") == "http://127.0.0.1/dav/a%3Fb%23c%25%3B.png")
    }

    @Test("the path goes before the base URL's query, which stays last")
    func baseWithQuery() {
        let item = UploadItem(
            id: 0, path: "/p/a b.jpg", relativePath: "a b.jpg", size: 1, modified: 0,
            contentType: "application/octet-stream")
        let planner = PutPlanner(baseURL: "http://127.0.0.1/dav/?sig=x&key=y", headers: [], token: nil)
        #expect(planner.url(for: item) == "http://127.0.0.1/dav/a%20b.jpg?sig=x&key=y")
        #expect(planner.destination(of: item) == "http://127.0.0.1/dav/a%20b.jpg?sig=REDACTED&key=REDACTED")
        #expect(planner.journalDestination(of: item).hasPrefix(planner.destination(of: item) + " #"))
        let plain = PutPlanner(baseURL: "http://127.0.0.1/dav/", headers: [], token: nil)
        #expect(plain.journalDestination(of: item) == "http://127.0.0.1/dav/a%20b.jpg")
    }
}
