"""Settings shared by every environment, split by concern; anything deployment-specific
comes from the environment. Importing them has no side effects (no server is started)."""

from config.settings.api import *
from config.settings.core import *
from config.settings.data import *
from config.settings.logs import *
from config.settings.ops import *
from config.settings.pdf import *
from config.settings.quotas import *
from config.settings.schedules import *
from config.settings.security import *
from config.settings.sso import *
from config.settings.workers import *
