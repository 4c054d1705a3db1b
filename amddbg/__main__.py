from amddbg.cli.main import main

raise SystemExit(main())
