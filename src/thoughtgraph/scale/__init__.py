"""Running many pairs and jobs elsewhere: Ray and what its workers are shipped.

Above evaluation/ and tuning/, which never import it: they take what runs their pairs and jobs
as an object (`evaluation.backend.PairBackend`, `tuning.backend.JobBackend`), and the Python API
(api/) and the command line hand them this package's Ray backends when `ray=` is given.
"""
