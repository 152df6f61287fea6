"""One module per comparison, in report order. Each has KEY (its name for --only), run(bench) and rows(bench) (the
report's rows and goals), and may have GOALS (shown as not measured when it is skipped) and SETUP (report lines)."""
from . import big_put, bwlimit, http2, https, link, photos, photos_shaped, queue, s3, screen, small_post, small_put, tiny

ALL = [small_post, small_put, big_put, screen, queue, photos, photos_shaped, bwlimit, https, http2, tiny, link, s3]
