# The Python side of the tools world's sandbox (escapade-tools src/sandbox.rs, PRELUDE):
# included in the binary at build time and run with `python3 -c`.
import sys
sys.path[:] = [p for p in sys.path if p]
_escapade_guard = sys.argv[1:] == ['1']
sys.argv[:] = ['main.py']

def _escapade_install():
    import posix
    isinstance_ = isinstance
    str_ = str
    bytes_ = bytes
    int_ = int
    and_ = int.__and__
    join = ''.join
    slash_join = '/'.join
    bjoin = b''.join
    decode = bytes.decode
    startswith = str.startswith
    split = str.split
    Denied = PermissionError
    root = posix.getcwd()

    def norm(p):
        if isinstance_(p, str_):
            p = join((p,))
        elif isinstance_(p, bytes_):
            p = decode(bjoin((p,)), 'utf-8', 'surrogateescape')
        else:
            return None
        if not startswith(p, '/'):
            p = root + '/' + p
        parts = []
        for c in split(p, '/'):
            if c == '..':
                if parts:
                    parts.pop()
            elif c and c != '.':
                parts.append(c)
        return '/' + slash_join(parts)

    def inside(p, base):
        return p == base or startswith(p, base + '/')

    reads = [root, '/usr/share/zoneinfo']
    for entry in sys.path:
        p = norm(entry)
        if p is not None:
            reads.append(p)
    reads = tuple(reads)

    def readable(p):
        for r in reads:
            if inside(p, r):
                return True
        return False

    WRITE = posix.O_WRONLY | posix.O_RDWR | posix.O_CREAT | posix.O_TRUNC | posix.O_APPEND
    BLOCKED = frozenset((
        'os.system', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.fork', 'os.forkpty',
        'os.startfile', 'os.kill', 'os.killpg', 'os.chdir', 'os.link', 'os.symlink',
        'signal.pthread_kill', 'sys.settrace', 'sys.setprofile',
        'sys._settraceallthreads', 'sys._setprofileallthreads', 'sys._current_frames',
        'gc.get_objects', 'gc.get_referrers', 'gc.get_referents', 'code.__new__',
        'sqlite3.enable_load_extension', 'sqlite3.load_extension',
    ))
    BLOCKED_PREFIXES = (
        'socket.', 'ctypes.', 'subprocess.', 'pty.', 'resource.', 'urllib.', 'http.',
        'ftplib.', 'smtplib.', 'poplib.', 'imaplib.', 'nntplib.', 'telnetlib.',
        'webbrowser.', 'sys.monitoring',
    )
    MODULES = frozenset((
        'ctypes', '_ctypes', '_posixsubprocess', 'subprocess', 'socket', '_socket',
        'multiprocessing', '_multiprocessing', '_xxsubinterpreters', '_xxinterpchannels',
        '_interpreters', '_testcapi', '_testinternalcapi', '_testbuffer',
        '_testmultiphase', '_testsinglephase', '_testimportmultiple',
    ))
    LISTING = frozenset(('os.listdir', 'os.scandir'))
    PATH_PREFIXES = ('os.', 'shutil.', 'tempfile.')

    def show(p):
        return '' if p is None else "('" + p + "')"

    def deny(event, detail):
        raise Denied('escapade sandbox: ' + event + detail + ' is not allowed')

    def hook(event, args):
        if event == 'open':
            path = args[0]
            if isinstance_(path, int_):
                return
            p = norm(path)
            if p is None:
                deny(event, '')
            if inside(p, root):
                return
            flags = args[2]
            if isinstance_(flags, int_) and and_(flags, WRITE) == 0 and readable(p):
                return
            deny(event, show(p))
        elif event == 'import':
            name = args[0]
            if isinstance_(name, str_):
                name = join((name,))
                if name in MODULES or split(name, '.')[0] in MODULES:
                    deny(event, ' ' + name)
        elif event in BLOCKED or startswith(event, BLOCKED_PREFIXES):
            deny(event, '')
        elif event in LISTING:
            path = args[0]
            if path is None or isinstance_(path, int_):
                return
            p = norm(path)
            if p is None or not readable(p):
                deny(event, show(p))
        elif event == 'sqlite3.connect':
            db = args[0]
            if not isinstance_(db, str_):
                deny(event, '')
            db = join((db,))
            if db != ':memory:' and (startswith(db, 'file:') or not inside(norm(db), root)):
                deny(event, show(db))
        elif startswith(event, PATH_PREFIXES):
            for a in args:
                if isinstance_(a, (str_, bytes_)):
                    p = norm(a)
                    if not inside(p, root):
                        deny(event, show(p))

    sys.addaudithook(hook)

def _escapade_run():
    excepthook = sys.__excepthook__
    main = type(sys)('__main__')
    main.__dict__['__builtins__'] = __builtins__
    main.__dict__['__file__'] = 'main.py'
    with open('main.py', 'rb') as f:
        source = f.read()
    sys.modules['__main__'] = main
    try:
        exec(compile(source, 'main.py', 'exec', dont_inherit=True), main.__dict__)
    except SystemExit:
        raise
    except BaseException as e:
        tb = e.__traceback__
        e.__traceback__ = None if tb is None else tb.tb_next
        excepthook(type(e), e, e.__traceback__)
        raise SystemExit(97 if isinstance(e, MemoryError) else 1)

if _escapade_guard:
    _escapade_install()
del _escapade_install, _escapade_guard
_escapade_run()
