import UploadData
import UploaderTUI

/// The screen's previews of the selected image, made by libvips (the screen itself knows no image library).
struct VipsThumbnails: ThumbnailSource {
    func thumbnail(path: String, maxWidth: Int, maxHeight: Int) -> Thumbnail? {
        VipsThumbnailer.rgb(path: path, maxWidth: maxWidth, maxHeight: maxHeight).flatMap {
            Thumbnail(width: $0.width, height: $0.height, rgb: $0.rgb)
        }
    }
}
