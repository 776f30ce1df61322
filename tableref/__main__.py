import sys

from tableref.cli import main

sys.exit(main())
