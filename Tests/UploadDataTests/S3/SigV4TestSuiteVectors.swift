import Foundation
import Testing

/// Vectors from AWS's Signature Version 4 test suite (aws-sig-v4-test-suite, 2015-08-30), copied as data:
/// the raw request (`.req`), canonical request (`.creq`), string to sign (`.sts`) and `Authorization`
/// header (`.authz`). Region `us-east-1`, service `service`, credentials `AKIDEXAMPLE` /
/// `wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY`, time 20150830T123600Z.
///
/// Left out: `get-header-value-multiline` (obsolete header line folding, which HTTP/1.1 clients must not
/// send). `post-sts-header-after` signs without the token, then adds it; only its canonical request and
/// string to sign are checked (see the tests).
struct SuiteVector: Sendable, CustomTestStringConvertible {
    var name: String
    var req: String
    var creq: String
    var sts: String
    var authz: String

    var testDescription: String { name }
}

enum SigV4TestSuite {
    static let accessKeyID = "AKIDEXAMPLE"
    static let secretAccessKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    static let region = "us-east-1"
    static let service = "service"
    /// 2015-08-30T12:36:00Z.
    static let epochSeconds = 1_440_938_160
    static let sessionToken =
        "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="

    private static let authzPrefix =
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
    private static let stsPrefix = "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"

    /// Vectors signed with the generic rules (path normalised and encoded twice).
    static let vectors: [SuiteVector] = [
        SuiteVector(
            name: "get-vanilla",
            req: "GET / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteVector(
            name: "get-vanilla-query",
            req: "GET / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteVector(
            name: "get-vanilla-empty-query-key",
            req: "GET /?Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"
        ),
        SuiteVector(
            name: "get-vanilla-query-order-key",
            req: "GET /?Param1=value2&Param1=Value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\nParam1=Value1&Param1=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "704b4cef673542d84cdff252633f065e8daeba5f168b77116f8b1bcaf3d38f89",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"
        ),
        SuiteVector(
            name: "get-vanilla-query-order-key-case",
            req: "GET /?Param2=value2&Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
        ),
        SuiteVector(
            name: "get-vanilla-query-order-value",
            req: "GET /?Param1=value2&Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\nParam1=value1&Param1=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "c968629d70850097a2d8781c9bf7edcb988b04cac14cca9be4acc3595f884606",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"
        ),
        SuiteVector(
            name: "get-vanilla-query-unreserved",
            req:
                "GET /?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"
        ),
        SuiteVector(
            name: "get-vanilla-utf8-query",
            req: "GET /?ሴ=bar HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"
        ),
        SuiteVector(
            name: "get-header-key-duplicate",
            req:
                "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value2\nMy-Header1:value2\nMy-Header1:value1\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c",
            authz: authzPrefix
                + "SignedHeaders=host;my-header1;x-amz-date, Signature=c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"
        ),
        SuiteVector(
            name: "get-header-value-order",
            req:
                "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value4\nMy-Header1:value1\nMy-Header1:value3\nMy-Header1:value2\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86",
            authz: authzPrefix
                + "SignedHeaders=host;my-header1;x-amz-date, Signature=08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"
        ),
        SuiteVector(
            name: "get-header-value-trim",
            req:
                "GET / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1: value1\nMy-Header2: \"a   b   c\"\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
            authz: authzPrefix
                + "SignedHeaders=host;my-header1;my-header2;x-amz-date, Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
        ),
        SuiteVector(
            name: "get-unreserved",
            req:
                "GET /-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"
        ),
        SuiteVector(
            name: "get-utf8",
            req: "GET /ሴ HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"
        ),
        SuiteVector(
            name: "post-header-key-case",
            req: "POST / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        ),
        SuiteVector(
            name: "post-header-key-sort",
            req: "POST / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:value1\nX-Amz-Date:20150830T123600Z",
            creq:
                "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "9368318c2967cf6de74404b30c65a91e8f6253e0a8659d6d5319f1a812f87d65",
            authz: authzPrefix
                + "SignedHeaders=host;my-header1;x-amz-date, Signature=c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"
        ),
        SuiteVector(
            name: "post-header-value-case",
            req: "POST / HTTP/1.1\nHost:example.amazonaws.com\nMy-Header1:VALUE1\nX-Amz-Date:20150830T123600Z",
            creq:
                "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:VALUE1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "d51ced243e649e3de6ef63afbbdcbca03131a21a7103a1583706a64618606a93",
            authz: authzPrefix
                + "SignedHeaders=host;my-header1;x-amz-date, Signature=cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"
        ),
        SuiteVector(
            name: "post-vanilla",
            req: "POST / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        ),
        SuiteVector(
            name: "post-vanilla-query",
            req: "POST /?Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "POST\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"
        ),
        SuiteVector(
            name: "post-vanilla-empty-query-value",
            req: "POST /?Param1=value1 HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "POST\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"
        ),
        SuiteVector(
            name: "post-x-www-form-urlencoded",
            req:
                "POST / HTTP/1.1\nContent-Type:application/x-www-form-urlencoded\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n\nParam1=value1",
            creq:
                "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            sts: stsPrefix + "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281",
            authz: authzPrefix
                + "SignedHeaders=content-type;host;x-amz-date, Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"
        ),
        SuiteVector(
            name: "post-x-www-form-urlencoded-parameters",
            req:
                "POST / HTTP/1.1\nContent-Type:application/x-www-form-urlencoded; charset=utf8\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n\nParam1=value1",
            creq:
                "POST\n/\n\ncontent-type:application/x-www-form-urlencoded; charset=utf8\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            sts: stsPrefix + "2e1cf7ed91881a30569e46552437e4156c823447bf1781b921b5d486c568dd1c",
            authz: authzPrefix
                + "SignedHeaders=content-type;host;x-amz-date, Signature=1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"
        ),
        // normalize-path/
        SuiteVector(
            name: "normalize-path/get-relative",
            req: "GET /example/.. HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteVector(
            name: "normalize-path/get-relative-relative",
            req: "GET /example1/example2/../.. HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteVector(
            name: "normalize-path/get-slash",
            req: "GET // HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteVector(
            name: "normalize-path/get-slash-dot-slash",
            req: "GET /./ HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteVector(
            name: "normalize-path/get-slash-pointless-dot",
            req: "GET /./example HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/example\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "214d50c111a8edc4819da6a636336472c916b5240f51e9a51b5c3305180cf702",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"
        ),
        SuiteVector(
            name: "normalize-path/get-slashes",
            req: "GET //example// HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/example/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "cb96b4ac96d501f7c5c15bc6d67b3035061cfced4af6585ad927f7e6c985c015",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"
        ),
        SuiteVector(
            name: "normalize-path/get-space",
            req: "GET /example space/ HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
            creq:
                "GET\n/example%20space/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date, Signature=652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"
        ),
        // post-sts-token/
        SuiteVector(
            name: "post-sts-token/post-sts-header-before",
            req: "POST / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\nX-Amz-Security-Token:"
                + sessionToken,
            creq: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\nx-amz-security-token:"
                + sessionToken
                + "\n\nhost;x-amz-date;x-amz-security-token\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sts: stsPrefix + "c237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6",
            authz: authzPrefix
                + "SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"
        ),
    ]

    /// `post-sts-header-after`: the token is added after signing, so it is not in the canonical request.
    static let stsHeaderAfter = SuiteVector(
        name: "post-sts-token/post-sts-header-after",
        req: "POST / HTTP/1.1\nHost:example.amazonaws.com\nX-Amz-Date:20150830T123600Z",
        creq:
            "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        sts: stsPrefix + "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
        authz: authzPrefix
            + "SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
    )
}

/// A `.req` file split into what the signer takes.
struct ParsedRequest {
    var method: String
    var url: String
    var headers: [(String, String)]
    var body: String

    /// Parses `METHOD PATH HTTP/1.1`, `Name:value` lines, a blank line and the body.
    init(_ text: String, scheme: String = "https") {
        let parts = text.components(separatedBy: "\n\n")
        let lines = parts[0].components(separatedBy: "\n")
        let requestLine = lines[0]
        let firstSpace = requestLine.firstIndex(of: " ")!
        let lastSpace = requestLine.lastIndex(of: " ")!
        method = String(requestLine[..<firstSpace])
        let target = String(requestLine[requestLine.index(after: firstSpace)..<lastSpace])
        headers = lines.dropFirst().map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), String(line[line.index(after: colon)...]))
        }
        let host = headers.first { $0.0.lowercased() == "host" }!.1.trimmingCharacters(in: .whitespaces)
        url = "\(scheme)://\(host)\(target.hasPrefix("/") ? target : "/" + target)"
        body = parts.dropFirst().joined(separator: "\n\n")
    }
}
