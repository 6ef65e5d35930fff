"""aloft: the atmosphere at chosen heights above a point, from NOAA GFS.

    import aloft
    client = aloft.Client()          # ALOFT_URL and ALOFT_API_KEY from the environment
    answer = client.profile(latitude=52.23, longitude=21.01, time="2020-08-04T18:00:00Z",
                            altitudes_m=[300, 1000], altitude_reference="agl")
"""
from ._client import NOT_CALLED, OPERATIONS, Client
from ._errors import ProblemError, UnreachableError, describe_problem

__all__ = ["Client", "ProblemError", "UnreachableError", "describe_problem", "OPERATIONS", "NOT_CALLED"]
__version__ = "0.1.0"
