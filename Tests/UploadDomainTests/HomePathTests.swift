import Testing
import UploadDomain

@Suite("HomePath: ~ as the shell reads it")
struct HomePathTests {
    @Test("a leading ~ or ~/ is the home folder; ~user, a ~ inside and other paths stay as they are")
    func expanding() {
        #expect(HomePath.expanding("~", home: "/home/me") == "/home/me")
        #expect(HomePath.expanding("~/logs/up.log", home: "/home/me") == "/home/me/logs/up.log")
        #expect(HomePath.expanding("~/x", home: "/home/me/") == "/home/me/x")
        #expect(HomePath.expanding("~bob/x", home: "/home/me") == "~bob/x")
        #expect(HomePath.expanding("logs/~/x", home: "/home/me") == "logs/~/x")
        #expect(HomePath.expanding("/abs/x", home: "/home/me") == "/abs/x")
    }

    @Test("the home folder is $HOME, else the passwd entry's")
    func home() {
        #expect(HomePath.home(["HOME": "/srv/ci"], passwd: { "/root" }) == "/srv/ci")
        #expect(HomePath.home(["HOME": ""], passwd: { "/root" }) == "/root")
        #expect(HomePath.home([:], passwd: { "/root" }) == "/root")
    }
}
