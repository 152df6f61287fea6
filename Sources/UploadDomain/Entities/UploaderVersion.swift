/// The release this build is: what `--version` prints and the User-Agent carries.
public enum UploaderVersion {
    public static let current = "0.1.0"
}
